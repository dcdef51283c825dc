// A tiny node:http server for client tests: records exactly what the client sends (method, path, headers,
// body, which connection) and answers with whatever the test's handler says.
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Captured {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: string;
  /** Client port of the connection: the same value means a reused keep-alive socket. */
  remotePort: number;
  at: number;
}

export interface Answer {
  status?: number;
  headers?: Record<string, string>;
  body?: unknown;
  /** Destroy the socket instead of answering. */
  destroy?: boolean;
  /** Never answer (for timeouts). */
  hang?: boolean;
  /** Answer after this many ms. */
  delayMs?: number;
}

export type Handler = (req: Captured, index: number) => Answer;

export interface CaptureServer {
  url: string;
  requests: Captured[];
  connections: number;
  handler: Handler;
  stop(): Promise<void>;
}

export const okJson = (body: unknown): Answer => ({ status: 200, body });

export async function startCaptureServer(handler: Handler = () => okJson({ status: 'OK' })): Promise<CaptureServer> {
  const state: CaptureServer = {
    url: '',
    requests: [],
    connections: 0,
    handler,
    stop: async () => {},
  };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const captured: Captured = {
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
        remotePort: req.socket.remotePort ?? 0,
        at: Date.now(),
      };
      const index = state.requests.push(captured) - 1;
      const answer = state.handler(captured, index);
      if (answer.hang) return;
      if (answer.destroy) return void req.socket.destroy();
      if (answer.delayMs) return void setTimeout(() => send(res, answer), answer.delayMs);
      send(res, answer);
    });
  });
  function send(res: http.ServerResponse, answer: Answer): void {
    const isText = typeof answer.body === 'string';
    const text = isText ? (answer.body as string) : JSON.stringify(answer.body ?? {});
    res.writeHead(answer.status ?? 200, {
      'content-type': isText ? 'text/html; charset=UTF-8' : 'application/json; charset=UTF-8',
      ...answer.headers,
    });
    res.end(text + '\n');
  }
  server.on('connection', () => state.connections++);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  state.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  state.stop = async () => {
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    server.closeAllConnections();
    await closed;
  };
  return state;
}
