// A loopback TCP proxy that delays every chunk from the client by a fixed latency before passing it to the
// target, standing in for a remote core: each request reaches the core that much later. Working on bytes,
// not HTTP, keeps the proxy's own cost per request small next to the latency it adds.
// Usage: node bench/latency-proxy.js <target-url> <latency-ms>
import { createServer, connect } from 'node:net';

const target = new URL(process.argv[2]);
const latencyMs = Number(process.argv[3] ?? 20);

const server = createServer((client) => {
  client.setNoDelay(true);
  const upstream = connect({ host: target.hostname, port: Number(target.port) });
  upstream.setNoDelay(true);
  // Timers of equal delay fire in the order they were set, so chunks keep their order.
  client.on('data', (chunk) => setTimeout(() => upstream.write(chunk), latencyMs));
  upstream.on('data', (chunk) => client.write(chunk));
  const close = () => {
    client.destroy();
    upstream.destroy();
  };
  client.on('close', () => setTimeout(close, latencyMs));
  upstream.on('close', close);
  client.on('error', close);
  upstream.on('error', close);
});
server.listen(0, '127.0.0.1', () => process.stdout.write(`listening ${server.address().port}\n`));
process.on('SIGTERM', () => {
  server.close();
  process.exit(0);
});
