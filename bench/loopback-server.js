// The raw loopback limit: a minimal node:http server that reads each request body and answers a fixed JSON
// body shaped like a core's import answer. Nothing real can be faster on the same machine and client.
import { createServer } from 'node:http';

const body = Buffer.from(
  JSON.stringify({
    status: 'OK',
    didUserAlreadyExist: false,
    user: {
      id: '0b5a4c1e-1d63-4b8e-9c4c-7a1f0c2d3e4f',
      isPrimaryUser: false,
      tenantIds: ['public'],
      timeJoined: 1600000000000,
      emails: ['user@bench.example'],
      phoneNumbers: [],
      thirdParty: [],
      loginMethods: [
        {
          tenantIds: ['public'],
          recipeUserId: '0b5a4c1e-1d63-4b8e-9c4c-7a1f0c2d3e4f',
          verified: false,
          timeJoined: 1600000000000,
          recipeId: 'emailpassword',
          email: 'user@bench.example',
        },
      ],
    },
  }) + '\n',
);

const server = createServer((req, res) => {
  req.on('data', () => {});
  req.on('end', () => {
    res.writeHead(200, { 'Content-Type': 'application/json; charset=UTF-8', 'Content-Length': body.length });
    res.end(body);
  });
});
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => process.stdout.write(`listening ${server.address().port}\n`));
process.on('SIGTERM', () => server.close(() => process.exit(0)));
