// The results screen's sign-in check: an email and a masked password (or a credentials file) tried on the
// target core with `POST /recipe/signin`. The password lives in this panel's field until Enter, then is dropped.
// The panel holds the fields; SignInResults below lists the latest checks.
import { Box, Text } from 'ink';
import { useState } from 'react';
import { Field } from '../components/Field.js';
import { PathInput } from '../components/PathInput.js';
import { useWizard } from '../context.js';
import { useKeys } from '../hooks/useKeys.js';
import { useKeyClaim } from '../keys/keyboard.js';
import { useSyncState } from '../hooks/useSyncState.js';
import { helpLine, type Command } from '../keymap.js';
import type { SignInEntry } from '../state/types.js';
import { theme } from '../theme.js';

const KEYS: Command[] = ['up', 'down', 'back'];
export const SIGN_IN_HELP = helpLine(['up', 'down', 'select', 'complete', 'back'], { up: 'field', select: 'check', back: 'close' });
const FIELDS = 3;
/** Failing emails named per file check, and the longest detail shown: the panel must fit 80x24. */
const FAILED_SHOWN = 3;
const DETAIL_MAX = 160;

const clip = (text: string) => (text.length > DETAIL_MAX ? `${text.slice(0, DETAIL_MAX - 1)}…` : text);

/** One line per check (never a password): the email or file, and what the core said. */
export function describeEntry(entry: SignInEntry): { ok: boolean; text: string; detail?: string } {
  switch (entry.kind) {
    case 'single': {
      const o = entry.outcome;
      if (o.status === 'signed-in') {
        return {
          ok: true,
          text: `${entry.email} signed in`,
          detail: `user ${o.userId}, ${o.loginMethods} login method${o.loginMethods === 1 ? '' : 's'}`,
        };
      }
      if (o.status === 'wrong-credentials') return { ok: false, text: `${entry.email}: wrong credentials (the core refused them)` };
      return { ok: false, text: `${entry.email}: error`, detail: o.error };
    }
    case 'file': {
      const r = entry.result;
      const text = `${entry.path}: ${r.ok}/${r.checked} signed in, ${r.failed.length} failed`;
      if (r.failed.length === 0) return { ok: r.checked > 0, text: r.checked > 0 ? text : `${entry.path}: no credentials in the file` };
      const shown = r.failed
        .slice(0, FAILED_SHOWN)
        .map((f) => `${f.email} (${f.status})`)
        .join(', ');
      const more = r.failed.length > FAILED_SHOWN ? `, and ${r.failed.length - FAILED_SHOWN} more` : '';
      return { ok: false, text, detail: `failed: ${shown}${more}` };
    }
    case 'file-error':
      return { ok: false, text: `${entry.path}: error`, detail: entry.error };
  }
}

export function SignInPanel() {
  const { state, actions, services } = useWizard();
  const [focus, setFocusNow, getFocus] = useSyncState(0);
  const { claim } = useKeyClaim();
  // A move claims its key: the enter that left the email does not also submit the password.
  const setFocus = (next: number | ((f: number) => number)) => {
    claim();
    setFocusNow(next);
  };
  const at = (i: number) => () => getFocus() === i;
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [file, setFile] = useState('');
  const { running, results } = state.signIn;
  const url = state.target.status === 'done' ? state.target.value.url : '';

  useKeys(
    KEYS,
    (c) => {
      if (c === 'up') setFocus((f) => (f + FIELDS - 1) % FIELDS);
      else if (c === 'down') setFocus((f) => (f + 1) % FIELDS);
      else actions.closeSignIn();
    },
    { textFocus: true },
  );

  const submitPassword = (typed: string) => {
    const who = email.trim();
    if (who === '') return setFocus(0);
    if (running) return;
    // Dropped at once: the field is emptied and only the email and outcome are kept.
    setPassword('');
    setEmail('');
    setFocus(0);
    void actions.signIn(who, typed);
  };

  return (
    <Box flexDirection="column" marginTop={1}>
      <Text wrap="truncate-end">
        sign in on {url} (POST /recipe/signin){running ? <Text {...theme.muted}> · checking…</Text> : null}
      </Text>
      <Field
        label="email"
        value={email}
        focus={focus === 0}
        focusNow={at(0)}
        onChange={setEmail}
        onSubmit={() => setFocus(1)}
        placeholder="user@example.com"
      />
      <Field
        label="password"
        value={password}
        focus={focus === 1}
        focusNow={at(1)}
        secret
        onChange={setPassword}
        onSubmit={submitPassword}
        placeholder="masked, never kept"
      />
      <PathInput
        label="or a file"
        value={file}
        focus={focus === 2}
        focusNow={at(2)}
        onChange={setFile}
        onSubmit={(path) => {
          if (path.trim() !== '' && !running) void actions.checkCredentialsFile(path.trim());
        }}
        complete={services.completePath}
      />
      <Text {...theme.muted}>{'  '}(a file of email,password lines checks many at once)</Text>
      <SignInResults results={results} />
    </Box>
  );
}

/** The latest checks, newest last: one line each, and its detail (the newest one wrapped whole, the others cut). */
function SignInResults({ results }: { results: SignInEntry[] }) {
  return (
    <Box flexDirection="column" marginTop={1}>
      {results.map((entry, i) => {
        const { ok, text, detail } = describeEntry(entry);
        const latest = i === results.length - 1;
        return (
          <Box key={i} flexDirection="column">
            <Text {...(ok ? theme.ok : theme.error)} wrap="truncate-end">
              {ok ? theme.symbols.ok : theme.symbols.fail} {text}
            </Text>
            {detail ? (
              <Text {...(ok ? {} : theme.muted)} wrap={latest ? 'wrap' : 'truncate-end'}>
                {'    '}
                {clip(detail)}
              </Text>
            ) : null}
          </Box>
        );
      })}
    </Box>
  );
}
