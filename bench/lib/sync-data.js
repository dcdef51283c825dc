// A newer export for the sync bench: the mixed file with 1% of its users touched (issue 22), deterministic. One
// change is due every 100 users, in turn, and given to the next user it fits: a new password hash (twice as often), a new email, a TOTP device removed or
// added, metadata and a role, disabled, deleted, its verified flag flipped; and one new user is added per 100.
import { createReadStream, createWriteStream } from 'node:fs';
import { once } from 'node:events';
import { createInterface } from 'node:readline';

const KINDS = ['password', 'password', 'email', 'totp-remove', 'totp-add', 'profile', 'disabled', 'deleted', 'verified', 'new'];

/** Writes the newer export; returns how many users got each change. */
export async function writeNewerExport(from, to) {
  const counts = Object.fromEntries(KINDS.map((k) => [k, 0]));
  const pool = { bcrypt: [], argon2: [], scrypt: [] };
  const out = createWriteStream(to);
  let chunk = '';
  const put = async (line) => {
    chunk += line + '\n';
    if (chunk.length > 1 << 20) {
      if (!out.write(chunk)) await once(out, 'drain');
      chunk = '';
    }
  };
  let i = 0;
  /** Changes due (one every 100 users), each given to the next user it fits (a device removed needs one...). */
  const due = [];
  const fits = (kind, u, other) =>
    kind === 'password'
      ? !!other
      : kind === 'email' || kind === 'verified'
        ? !!u.email
        : kind === 'totp-remove'
          ? !!u.totp
          : kind === 'totp-add'
            ? !u.totp
            : true;
  for await (const line of createInterface({ input: createReadStream(from), crlfDelay: Infinity })) {
    if (!line.trim()) continue;
    const u = JSON.parse(line);
    const h = u.password?.hash;
    const family = h?.startsWith('$2') ? 'bcrypt' : h?.startsWith('$argon2') ? 'argon2' : h ? 'scrypt' : undefined;
    if (family && pool[family].length < 8 && !pool[family].includes(h)) pool[family].push(h);
    if (i % 100 === 0) due.push(KINDS[(i / 100) % KINDS.length]);
    i++;
    const other = family ? pool[family].find((x) => x !== h) : undefined;
    const at = due.findIndex((kind) => fits(kind, u, other));
    if (at < 0) {
      await put(JSON.stringify(u));
      continue;
    }
    const [kind] = due.splice(at, 1);
    counts[kind]++;
    if (kind === 'deleted') continue;
    if (kind === 'password') u.password = { hash: other };
    else if (kind === 'email') u.email = u.email.replace('@', '.new@');
    else if (kind === 'totp-remove') delete u.totp;
    else if (kind === 'totp-add') u.totp = [{ secret: 'JBSWY3DPEHPK3PXP', deviceName: 'added-in-sync' }];
    else if (kind === 'profile') Object.assign(u, { metadata: { plan: 'gold' }, roles: ['member'] });
    else if (kind === 'disabled') u.disabled = true;
    else if (kind === 'verified') u.emailVerified = !u.emailVerified;
    else if (kind === 'new')
      await put(JSON.stringify({ id: `sync-new-${i}`, email: `sync-new-${i}@bench.example`, password: { hash: pool.bcrypt[0] } }));
    await put(JSON.stringify(u));
  }
  out.end(chunk);
  await once(out, 'finish');
  return counts;
}
