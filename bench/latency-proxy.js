// A loopback HTTP proxy that holds each request for a fixed latency before forwarding it to the target,
// standing in for a remote core. Usage: node bench/latency-proxy.js <target-url> <latency-ms>
import { createServer, request, Agent } from 'node:http';

const target = new URL(process.argv[2]);
const latencyMs = Number(process.argv[3] ?? 20);
const agent = new Agent({ keepAlive: true, maxSockets: 256 });

const server = createServer((req, res) => {
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    setTimeout(() => {
      const upstream = request(
        { host: target.hostname, port: target.port, method: req.method, path: req.url, headers: req.headers, agent },
        (up) => {
          res.writeHead(up.statusCode ?? 502, up.headers);
          up.pipe(res);
        },
      );
      upstream.on('error', () => {
        res.writeHead(502);
        res.end('proxy: upstream error\n');
      });
      upstream.end(Buffer.concat(chunks));
    }, latencyMs);
  });
});
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => process.stdout.write(`listening ${server.address().port}\n`));
process.on('SIGTERM', () => server.close(() => process.exit(0)));
