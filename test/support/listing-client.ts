// A core client whose GET /users requests are counted, with the join times of the users they answered: for tests
// of what a read-back lists (staged-readback, staged-early).
import { createCoreClient } from '../../src/core-client/client.js';
import type { CoreClient } from '../../src/core-client/types.js';

export function listingCounted(url: string): { core: CoreClient; pages: () => number; listed: number[] } {
  const core = createCoreClient({ url });
  let pages = 0;
  const listed: number[] = [];
  const list = core.listUsers.bind(core);
  core.listUsers = async (input) => {
    pages++;
    const r = await list(input);
    for (const u of r.users) listed.push(u.timeJoined);
    return r;
  };
  return { core, pages: () => pages, listed };
}
