import assert from 'node:assert/strict';
import { Agent, request } from 'node:http';
import { connect, type Socket } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { startServer, type RunningServer } from '../../crawler/serve/server.ts';
import { createServeStoredPages } from '../../crawler/serve/stored-pages.ts';
import { ForagerService } from '../../crawler/service/service.ts';
import type { ApiReply } from '../../crawler/protocol/wire.ts';
import { tempDir } from '../support/crawl-harness.ts';

interface Answer {
  status: number;
  body: string;
  socket: Socket;
}

/** POST /api/<method> over `agent`; the body is sent in `chunks`, with a Content-Length unless `chunked`. */
function post(server: RunningServer, agent: Agent, method: string, chunks: Buffer[], chunked = false): Promise<Answer> {
  const length = chunks.reduce((sum, chunk) => sum + chunk.length, 0);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port: server.port,
        method: 'POST',
        path: `${server.appRoot}api/${method}`,
        agent,
        headers: {
          host: `127.0.0.1:${server.port}`,
          authorization: `Bearer ${server.token}`,
          'content-type': 'application/json',
          ...(chunked ? {} : { 'content-length': String(length) }),
        },
      },
      (res) => {
        const parts: Buffer[] = [];
        res.on('data', (part: Buffer) => parts.push(part));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(parts).toString('utf8'), socket: res.socket }));
      },
    );
    req.on('error', reject);
    for (const chunk of chunks) req.write(chunk);
    req.end();
  });
}

/** A JSON body of about `bytes` bytes, in 64 KiB chunks. */
function largeBody(bytes: number): Buffer[] {
  const chunk = Buffer.alloc(64 * 1024, 'a');
  const chunks = Array.from({ length: Math.ceil(bytes / chunk.length) }, () => chunk);
  return [Buffer.from('{"padding":"'), ...chunks, Buffer.from('"}')];
}

/**
 * Sends an endless chunked body on a raw connection (giving up at 1 GiB) until the server closes
 * it: the status line it answered, and the bytes it took. (Node's client stops writing a body
 * once the response has ended, so it cannot be this client.)
 */
function sendEndlessBody(server: RunningServer): Promise<{ statusLine: string; written: number }> {
  const payload = Buffer.alloc(64 * 1024, 'a');
  const chunk = Buffer.concat([Buffer.from(`${payload.length.toString(16)}\r\n`), payload, Buffer.from('\r\n')]);
  const giveUpAt = 1024 * 1024 * 1024;
  return new Promise((resolve) => {
    let answer = '';
    let written = 0;
    const socket = connect(server.port, '127.0.0.1');
    socket.setEncoding('latin1').on('data', (text: string) => (answer += text));
    socket.on('error', () => undefined);
    socket.on('close', () => resolve({ statusLine: answer.split('\r\n')[0] ?? '', written }));
    const head = [
      `POST ${server.appRoot}api/info HTTP/1.1`, `host: 127.0.0.1:${server.port}`, `authorization: Bearer ${server.token}`,
      'content-type: application/json', 'transfer-encoding: chunked', '', '',
    ].join('\r\n');
    socket.write(head);
    const send = (): void => {
      while (!socket.destroyed && written < giveUpAt) {
        written += chunk.length;
        if (!socket.write(chunk)) return void socket.once('drain', send);
      }
      socket.destroy();
    };
    send();
  });
}

function assertTooLarge(answer: Answer): void {
  assert.equal(answer.status, 413, answer.body);
  const reply = JSON.parse(answer.body) as ApiReply;
  assert.equal(reply.ok, false);
  assert.ok(!reply.ok);
  assert.equal(reply.error.code, 'BAD_REQUEST');
  assert.match(reply.error.message, /larger than the 1048576 bytes/);
}

describe('forager serve: an API call body over the limit', () => {
  const dir = tempDir('forager-serve-limits-');
  let service: ForagerService;
  let server: RunningServer;
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });

  before(async () => {
    service = new ForagerService({ dir: dir.dir });
    server = await startServer({ service, storedPages: createServeStoredPages(service), rendererDir: dir.dir });
  });

  after(async () => {
    agent.destroy();
    await service.close();
    await server.close();
    dir.cleanup();
  });

  it('is answered 413 with an API error, and the connection serves the next call', async () => {
    const refused = await post(server, agent, 'info', largeBody(2 * 1024 * 1024));
    assertTooLarge(refused);
    const next = await post(server, agent, 'info', [Buffer.from('{}')]);
    assert.equal(next.status, 200, next.body);
    assert.equal(next.socket, refused.socket, 'the same connection');
  });

  it('is not read on without end: a client that keeps sending is cut off', async () => {
    const { statusLine, written } = await sendEndlessBody(server);
    assert.equal(statusLine, 'HTTP/1.1 413 Payload Too Large');
    assert.ok(written < 64 * 1024 * 1024, `the server read ${written} bytes of a refused body`);
  });

  it('is answered 413 when it comes chunked, without a Content-Length', async () => {
    const refused = await post(server, agent, 'info', largeBody(2 * 1024 * 1024), true);
    assertTooLarge(refused);
    const next = await post(server, agent, 'info', [Buffer.from('{}')]);
    assert.equal(next.status, 200, next.body);
  });
});
