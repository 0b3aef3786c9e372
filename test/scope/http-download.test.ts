import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { RaymondError, formatError } from '../../src/errors.js';
import { downloadBytes } from '../../src/scope/http-download.js';
import { startServer, streamZeros, type TestServer } from '../helpers/http-server.js';

let server: TestServer;
before(async () => {
  server = await startServer((req, res) => {
    if (req.url === '/hello') res.end('hello');
    else if (req.url === '/stream') streamZeros(res, 300);
    else if (req.url === '/declared') {
      res.setHeader('content-length', '300');
      res.end(Buffer.alloc(300));
    } else if (req.url === '/hang') {
      // Never answers: only the timeout ends the download.
    } else if (req.url === '/slow-body') {
      res.write('partial');
    } else if (req.url === '/busy') {
      res.statusCode = 503;
      res.end('later');
    } else {
      res.statusCode = 404;
      res.end('gone');
    }
  });
});
after(() => server.close());

const limits = { maxBytes: 100, timeoutMs: 10_000 };

/** The refusal of a download, checked to be ERR_DOWNLOAD (exit 64), or ERR_UNREACHABLE (exit 75) for what may pass. */
async function refusal(path: string, opts = limits, transient = false): Promise<string> {
  const err = await downloadBytes(server.url + path, opts).then(
    () => assert.fail('the download succeeded'),
    (e: unknown) => e,
  );
  assert.ok(err instanceof RaymondError);
  assert.equal(err.code, transient ? 'ERR_UNREACHABLE' : 'ERR_DOWNLOAD');
  assert.equal(err.kind, transient ? 'transient' : 'invalid');
  assert.equal(err.file, server.url + path);
  return formatError(err);
}

describe('downloadBytes', () => {
  it('gives the body of a 2xx answer', async () => {
    assert.equal((await downloadBytes(`${server.url}/hello`, limits)).toString(), 'hello');
  });

  it('refuses a non-2xx answer with its status', async () => {
    assert.match(
      await refusal('/nothing'),
      /: download failed: the server answered 404 Not Found$/,
    );
    assert.match(
      await refusal('/busy', limits, true),
      /: download failed: the server answered 503 Service Unavailable$/,
    );
  });

  it('refuses a body past the cap, announced or streamed', async () => {
    assert.match(
      await refusal('/declared'),
      /: the download is larger than 100 bytes, the most Raymond fetches; refusing it$/,
    );
    assert.match(await refusal('/stream'), /: the download is larger than 100 bytes/);
  });

  it('gives up after the timeout, before an answer or in the middle of the body', async () => {
    const quick = { maxBytes: 100, timeoutMs: 50 };
    assert.match(
      await refusal('/hang', quick, true),
      /: download failed: no complete answer within 0\.05 s$/,
    );
    assert.match(
      await refusal('/slow-body', quick, true),
      /: download failed: no complete answer within 0\.05 s$/,
    );
  });

  it('names the connection error, a failure that may pass (ERR_UNREACHABLE)', async () => {
    const closed = await startServer(() => {});
    await closed.close();
    const err = await downloadBytes(`${closed.url}/x`, limits).catch((e: unknown) => e);
    assert.ok(err instanceof RaymondError);
    assert.equal(err.message, 'download failed: ECONNREFUSED');
    assert.equal(err.code, 'ERR_UNREACHABLE');
    assert.equal(err.kind, 'transient');
  });
});
