import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { proxySettings } from '../src/proxied-fetch.js';

describe('proxySettings', () => {
  it('reads the lower-case variable first, the upper-case one else; an empty one is unset', () => {
    assert.deepEqual(proxySettings({ HTTP_PROXY: 'http://a:1', http_proxy: 'http://b:2' }), {
      httpProxy: 'http://b:2',
    });
    assert.deepEqual(proxySettings({ HTTP_PROXY: 'http://a:1', http_proxy: '' }), {
      httpProxy: 'http://a:1',
    });
    assert.deepEqual(proxySettings({ HTTPS_PROXY: 'http://p:3', NO_PROXY: 'localhost,.corp' }), {
      httpsProxy: 'http://p:3',
      noProxy: 'localhost,.corp',
    });
  });

  it('is undefined when no proxy is named: NO_PROXY alone changes nothing', () => {
    assert.equal(proxySettings({}), undefined);
    assert.equal(proxySettings({ NO_PROXY: '*', HTTP_PROXY: '' }), undefined);
  });
});
