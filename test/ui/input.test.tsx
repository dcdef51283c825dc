// The text field under keys that arrive faster than React re-renders (a held backspace, fast typing, a paste
// split across reads): every key must build on the one before it, not on the last rendered value.
import { render } from 'ink-testing-library';
import { useState } from 'react';
import { describe, expect, it } from 'vitest';
import { Input } from '../../src/ui/components/Input.js';
import { KeyboardProvider } from '../../src/ui/keys/keyboard.js';
import { waitFor } from './harness.js';

function Field({ initial = '', mask, submitted }: { initial?: string; mask?: string; submitted: string[] }) {
  const [value, setValue] = useState(initial);
  return (
    <KeyboardProvider>
      <Input value={value} onChange={setValue} onSubmit={(v) => submitted.push(v)} mask={mask} />
    </KeyboardProvider>
  );
}

const BACKSPACE = '\u007f';
const LEFT = '\u001b[D';

describe('Input with keys read before a re-render', () => {
  it('a held backspace (one key per read, no render between) clears the whole value', async () => {
    const submitted: string[] = [];
    const path = '/work/main/fixtures/canonical/users.js';
    const { stdin, lastFrame } = render(<Field initial={path} submitted={submitted} />);
    await waitFor(() => lastFrame()?.includes('users.js'), 'the initial value');
    for (let i = 0; i < path.length + 2; i++) stdin.write(BACKSPACE);
    stdin.write('\r');
    await waitFor(() => submitted.length === 1, 'the submit');
    expect(submitted).toEqual(['']);
  });

  it('fast typing, one character per read, keeps every character in order', async () => {
    const submitted: string[] = [];
    const { stdin } = render(<Field submitted={submitted} />);
    await new Promise((r) => setImmediate(r));
    for (const ch of 'hello world') stdin.write(ch);
    stdin.write('\r');
    await waitFor(() => submitted.length === 1, 'the submit');
    expect(submitted).toEqual(['hello world']);
  });

  it('moves the cursor and edits in the middle, with keys read back to back', async () => {
    const submitted: string[] = [];
    const { stdin } = render(<Field initial="abcd" submitted={submitted} />);
    await new Promise((r) => setImmediate(r));
    stdin.write(LEFT);
    stdin.write(LEFT);
    stdin.write('X');
    stdin.write(BACKSPACE);
    stdin.write(BACKSPACE);
    stdin.write('Y');
    stdin.write('\r');
    await waitFor(() => submitted.length === 1, 'the submit');
    expect(submitted).toEqual(['aYcd']);
  });

  it('a masked field shows only the mask, and still edits right', async () => {
    const submitted: string[] = [];
    const { stdin, lastFrame } = render(<Field mask="•" submitted={submitted} />);
    await new Promise((r) => setImmediate(r));
    for (const ch of 'secret-value') stdin.write(ch);
    stdin.write(BACKSPACE);
    await waitFor(() => lastFrame()?.includes('•••••••••••'), 'the masked value');
    expect(lastFrame()).not.toContain('secret');
    stdin.write('\r');
    await waitFor(() => submitted.length === 1, 'the submit');
    expect(submitted).toEqual(['secret-valu']);
  });

  it('a value changed by the parent (a completion) replaces the text and puts the cursor at its end', async () => {
    const submitted: string[] = [];
    let complete: (v: string) => void = () => undefined;
    function Completing() {
      const [value, setValue] = useState('/tmp/fi');
      complete = setValue;
      return (
        <KeyboardProvider>
          <Input value={value} onChange={setValue} onSubmit={(v) => submitted.push(v)} />
        </KeyboardProvider>
      );
    }
    const { stdin, lastFrame } = render(<Completing />);
    await new Promise((r) => setImmediate(r));
    complete('/tmp/file.json');
    await waitFor(() => lastFrame()?.includes('/tmp/file.json'), 'the completed value');
    stdin.write('x');
    stdin.write('\r');
    await waitFor(() => submitted.length === 1, 'the submit');
    expect(submitted).toEqual(['/tmp/file.jsonx']);
  });
});

describe('keys read in the same chunk as the arrow that moved the focus', () => {
  it('land in the field that has the focus now, not the one it left, and none is lost', async () => {
    const { mkdtempSync, rmSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const { join } = await import('node:path');
    const { emptyProfile, saveProfile } = await import('../../src/profiles/index.js');
    const { createRealServices } = await import('../../src/ui/services/real.js');
    const { renderWizard } = await import('./harness.js');
    const dir = mkdtempSync(join(tmpdir(), 'am-handover-'));
    const env = { AUTH_MIGRATE_CONFIG_DIR: join(dir, 'config') };
    try {
      await saveProfile(emptyProfile('quick'), {}, env);
      const w = renderWizard(createRealServices({ env, cwd: dir }), 'quick', { columns: 80, rows: 24 });
      await w.until('2/8 keys');
      const api = 'k'.repeat(24);
      const licence = 'l'.repeat(21);
      // One read: the api key, two arrows (to the licence key's field, past the row of where it is kept), the licence key.
      w.stdin.write(`${api}\u001b[B\u001b[B${licence}`);
      // Keys are applied one at a time now, so wait for the last one (the api key passes 21 chars on its way).
      const frame = await w.until(/licence key\s+•+\s+✓ 21 chars/);
      expect(frame).toMatch(/api key\s+•+\s+✓ 24 chars/);
      expect(frame).toMatch(/licence key\s+•+\s+✓ 21 chars/);
      // And an arrow then text again in one read: back up to the api key, two more characters at its end.
      w.stdin.write('\u001b[A\u001b[Azz');
      await w.until('✓ 26 chars');
      expect(w.frame()).toMatch(/licence key\s+•+\s+✓ 21 chars/);
      w.unmount();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('keys read one by one right after the arrows (each its own read, no render between) go to the field focused now', async () => {
    const { mkdtempSync, rmSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const { join } = await import('node:path');
    const { emptyProfile, saveProfile } = await import('../../src/profiles/index.js');
    const { createRealServices } = await import('../../src/ui/services/real.js');
    const { renderWizard } = await import('./harness.js');
    const dir = mkdtempSync(join(tmpdir(), 'am-handover-'));
    const env = { AUTH_MIGRATE_CONFIG_DIR: join(dir, 'config') };
    try {
      await saveProfile(emptyProfile('quick'), {}, env);
      const w = renderWizard(createRealServices({ env, cwd: dir }), 'quick', { columns: 80, rows: 24 });
      await w.until('2/8 keys');
      for (const ch of 'k'.repeat(24)) w.stdin.write(ch);
      await w.until('✓ 24 chars');
      // Down, Down, then the licence key a character a read, as a fast typist's keys arrive: no frame between.
      w.stdin.write('\u001b[B');
      w.stdin.write('\u001b[B');
      for (const ch of 'l'.repeat(21)) w.stdin.write(ch);
      // Keys are applied one at a time now, so wait for the last one (the api key passes 21 chars on its way).
      const frame = await w.until(/licence key\s+•+\s+✓ 21 chars/);
      expect(frame).toMatch(/api key\s+•+\s+✓ 24 chars/);
      expect(frame).toMatch(/licence key\s+•+\s+✓ 21 chars/);
      // Up, Up and two characters, read one by one: they end the api key.
      w.stdin.write('\u001b[A');
      w.stdin.write('\u001b[A');
      w.stdin.write('z');
      w.stdin.write('z');
      await w.until('✓ 26 chars');
      expect(w.frame()).toMatch(/licence key\s+•+\s+✓ 21 chars/);
      w.unmount();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
