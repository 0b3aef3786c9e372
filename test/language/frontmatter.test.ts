import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseStateSource } from '../../src/language/frontmatter.js';
import { RaymondError, formatError } from '../../src/errors.js';

const F = 'wf/REVIEW.md';

describe('parseStateSource', () => {
  it('returns the whole text when there is no frontmatter', () => {
    assert.deepEqual(parseStateSource('Just a prompt.\n---\nnot frontmatter', F), {
      policy: {},
      body: 'Just a prompt.\n---\nnot frontmatter',
      warnings: [],
    });
  });

  it('reads the inline form of allowed_transitions, model and effort', () => {
    const text =
      '---\nmodel: haiku\neffort: low\nallowed_transitions:\n  - { tag: goto, target: NEXT.md }\n  - { tag: call, target: C, return: AFTER }\n  - { tag: result }\n---\nPrompt body\n';
    const src = parseStateSource(text, F);
    assert.equal(src.body, 'Prompt body\n');
    assert.equal(src.policy.model, 'haiku');
    assert.equal(src.policy.effort, 'low');
    assert.deepEqual(src.policy.allowed, [
      { tag: 'goto', target: 'NEXT.md', attributes: {} },
      { tag: 'call', target: 'C', attributes: { return: 'AFTER' } },
      { tag: 'result', attributes: {} },
    ]);
  });

  it('reads the block form, with CRLF line ends', () => {
    const text =
      '---\r\nallowed_transitions:\r\n  - tag: reset\r\n    target: IMPLEMENT.md\r\n---\r\nBody';
    const src = parseStateSource(text, F);
    assert.deepEqual(src.policy.allowed, [
      { tag: 'reset', target: 'IMPLEMENT.md', attributes: {} },
    ]);
    assert.equal(src.body, 'Body');
  });

  it("reads an entry's attributes: list apart from the values it fixes", () => {
    const src = parseStateSource(
      '---\nallowed_transitions:\n  - { tag: fork, target: W.md, next: D, attributes: [item, input, __proto__] }\n  - { tag: goto, target: N, attributes: [] }\n---\nx',
      F,
    );
    assert.deepEqual(src.policy.allowed, [
      {
        tag: 'fork',
        target: 'W.md',
        attributes: { next: 'D' },
        allowedAttributes: ['item', 'input', '__proto__'],
      },
      { tag: 'goto', target: 'N', attributes: {}, allowedAttributes: [] },
    ]);
  });

  it('warns about unknown keys, naming the file and the key', () => {
    const src = parseStateSource('---\nmodle: opus\n---\nx', F);
    assert.deepEqual(src.warnings, [
      `unknown frontmatter key "modle" (known: allowed_transitions, model, fallback_models, effort, timeout, force_implicit, budget, tools, allowed_tools, disallowed_tools, mcp_servers, mcp_inherit, append_system_prompt, add_dirs, permission_mode, on_denial)`,
    ]);
  });

  it('reads the grant keys: lists or comma strings, servers inline, and refuses a bad value with one line', () => {
    const src = parseStateSource(
      '---\ntools: "Read, Bash(git add:*, -A)"\nallowed_tools: [Edit]\ndisallowed_tools: []\nmcp_servers: { gh: { command: gh-mcp, args: [serve] } }\nadd_dirs: ../shared\npermission_mode: dontAsk\non_denial: fail\n---\nx',
      F,
    );
    assert.deepEqual(src.policy.grant, {
      tools: ['Read', 'Bash(git add:*, -A)'],
      allowedTools: ['Edit'],
      disallowedTools: [],
      mcpServers: { gh: { command: 'gh-mcp', args: ['serve'] } },
      addDirs: ['../shared'],
      permissionMode: 'dontAsk',
      onDenial: 'fail',
    });
    assert.deepEqual(
      parseStateSource('---\ntools: []\nmcp_servers: servers.json\n---\nx', F).policy.grant,
      { tools: [], mcpServers: 'servers.json' },
    );
    for (const [fm, message] of [
      ['tools: 3', /tools must be a list of tool names/],
      ['on_denial: stop', /on_denial must be one of warn, fail, not "stop"/],
      ['mcp_servers: { gh: { args: [x] } }', /mcp_servers\.gh has neither command nor url/],
      ['permission_mode: yolo', /permission_mode must be one of/],
      ['mcp_inherit: yes', /mcp_inherit must be true or false/],
    ] as const) {
      assert.throws(
        () => parseStateSource(`---\n${fm}\n---\nx`, F),
        (e: unknown) =>
          e instanceof RaymondError &&
          e.code === 'ERR_FRONTMATTER' &&
          e.file === F &&
          message.test(e.message),
        fm,
      );
    }
  });

  const errors: Array<[string, string, RegExp]> = [
    ['malformed YAML', '---\nallowed_transitions: [ { tag: goto\n---\nx', /malformed YAML/],
    ['a list instead of a mapping', '---\n- a\n- b\n---\nx', /must be a YAML mapping/],
    ['allowed_transitions not a list', '---\nallowed_transitions: goto\n---\nx', /must be a list/],
    [
      'unknown tag',
      '---\nallowed_transitions:\n  - { tag: jump, target: X }\n---\nx',
      /tag "jump"/,
    ],
    [
      'goto without target',
      '---\nallowed_transitions:\n  - { tag: goto }\n---\nx',
      /needs a target/,
    ],
    [
      'target with a path',
      '---\nallowed_transitions:\n  - { tag: goto, target: ../X.md }\n---\nx',
      /is a path/,
    ],
    [
      'attributes not a list',
      '---\nallowed_transitions:\n  - { tag: fork, target: W, attributes: item }\n---\nx',
      /allowed_transitions\[0\]\.attributes must be a list of attribute names, like \[item, input\]$/,
    ],
    [
      'attributes listing a non-name',
      '---\nallowed_transitions:\n  - { tag: fork, target: W, attributes: [item, "a b"] }\n---\nx',
      /must be a list of attribute names, like \[item, input\]; "a b" is not one$/,
    ],
    [
      'attributes listing a number',
      '---\nallowed_transitions:\n  - { tag: fork, target: W, attributes: [1] }\n---\nx',
      /; 1 is not one$/,
    ],
  ];
  for (const [name, text, pattern] of errors) {
    it(`refuses ${name}, naming the file`, () => {
      assert.throws(
        () => parseStateSource(text, F),
        (err: unknown) => {
          assert.ok(err instanceof RaymondError);
          assert.ok(formatError(err).startsWith(`${F}: `), formatError(err));
          assert.match(formatError(err), pattern);
          assert.ok(!formatError(err).includes('\n'), 'one line');
          return true;
        },
      );
    });
  }
});

describe('payload and force_implicit', () => {
  it("reads a <result> entry's payload apart from attributes, and payload as an attribute on other tags", () => {
    const { policy } = parseStateSource(
      '---\nallowed_transitions:\n  - { tag: result, payload: "YES" }\n  - { tag: goto, target: N, payload: p }\nforce_implicit: false\n---\nAsk.',
      F,
    );
    assert.deepEqual(policy.allowed, [
      { tag: 'result', attributes: {}, payload: 'YES' },
      { tag: 'goto', target: 'N', attributes: { payload: 'p' } },
    ]);
    assert.equal(policy.forceImplicit, undefined);
  });

  it('takes force_implicit on a single fixed transition, and refuses it elsewhere in one line naming the file', () => {
    assert.equal(
      parseStateSource(
        '---\nallowed_transitions:\n  - { tag: goto, target: N }\nforce_implicit: true\n---\nx',
        F,
      ).policy.forceImplicit,
      true,
    );
    assert.equal(
      parseStateSource(
        '---\nallowed_transitions:\n  - { tag: result, payload: DONE }\nforce_implicit: true\n---\nx',
        F,
      ).policy.forceImplicit,
      true,
    );
    for (const [front, why] of [
      [
        'allowed_transitions:\n  - { tag: goto, target: N }\n  - { tag: goto, target: M }\nforce_implicit: true',
        /force_implicit: true needs exactly one allowed transition/,
      ],
      [
        'allowed_transitions:\n  - { tag: result }\nforce_implicit: true',
        /force_implicit: true needs exactly one allowed transition/,
      ],
      ['force_implicit: true', /force_implicit: true needs exactly one allowed transition/],
      [
        'allowed_transitions:\n  - { tag: goto, target: N }\nforce_implicit: "yes"',
        /force_implicit must be true or false/,
      ],
      [
        'allowed_transitions:\n  - { tag: call-workflow, return: R }\nforce_implicit: true',
        /force_implicit: true needs exactly one allowed transition/,
      ],
    ] as const) {
      assert.throws(
        () => parseStateSource(`---\n${front}\n---\nx`, F),
        (err: unknown) =>
          err instanceof RaymondError &&
          err.code === 'ERR_FRONTMATTER' &&
          why.test(formatError(err)) &&
          formatError(err).startsWith(`${F}: `),
      );
    }
  });

  it('reads cross-workflow entries: the target, a workflow path, is optional', () => {
    const src = parseStateSource(
      '---\nallowed_transitions:\n  - { tag: call-workflow, return: IMPL.md }\n  - { tag: fork-workflow, target: ../bs_work/, next: MONITOR.sh }\n---\nx',
      F,
    );
    assert.deepEqual(src.policy.allowed, [
      { tag: 'call-workflow', attributes: { return: 'IMPL.md' } },
      { tag: 'fork-workflow', target: '../bs_work/', attributes: { next: 'MONITOR.sh' } },
    ]);
    assert.throws(
      () =>
        parseStateSource(
          '---\nallowed_transitions:\n  - { tag: call, target: ../x, return: R }\n---\nx',
          F,
        ),
      /is a path/,
    );
  });

  it('reads timeout: seconds, 0 for none; anything else is refused', () => {
    assert.deepEqual(parseStateSource('---\ntimeout: 90\n---\nx', F).policy, {
      timeoutSeconds: 90,
    });
    assert.deepEqual(parseStateSource('---\ntimeout: 0\n---\nx', F).policy, { timeoutSeconds: 0 });
    for (const bad of ['-1', '"5"', '[1]']) {
      assert.throws(
        () => parseStateSource(`---\ntimeout: ${bad}\n---\nx`, F),
        (err: unknown) =>
          err instanceof RaymondError &&
          /timeout must be a number of seconds, 0 or more/.test(err.message),
      );
    }
  });
});

describe('parseStateSource: where the frontmatter ends', () => {
  it('ends only at a line that is exactly --- (trailing blanks allowed), never mid-line', () => {
    const src = parseStateSource('---\neffort: low---\ntimeout: 30\n---  \nPrompt\n', F);
    assert.deepEqual(src.policy, { effort: 'low---', timeoutSeconds: 30 });
    assert.equal(src.body, 'Prompt\n');
    assert.equal(src.warnings.length, 0);
    // No closing line at all: no frontmatter, the text is the prompt.
    assert.deepEqual(parseStateSource('---\neffort: low---\nPrompt\n', F), {
      policy: {},
      body: '---\neffort: low---\nPrompt\n',
      warnings: [],
    });
    assert.deepEqual(parseStateSource('---\n---\nBody', F), {
      policy: {},
      body: 'Body',
      warnings: [],
    });
    assert.deepEqual(parseStateSource('---\r\neffort: low\r\n--- \r\nBody', F).policy, {
      effort: 'low',
    });
  });
});

describe('parseStateSource: where malformed frontmatter is', () => {
  it('refuses an alias bomb in one line, as malformed frontmatter naming the file', () => {
    const bomb = [
      'a: &a [x, x, x, x, x, x, x, x, x]',
      ...'bcdef'
        .split('')
        .map((k, i) => `${k}: &${k} [${Array(9).fill(`*${'abcdef'[i]}`).join(', ')}]`),
    ].join('\n');
    assert.throws(
      () => parseStateSource(`---\n${bomb}\n---\nx`, F),
      (err: unknown) =>
        err instanceof RaymondError &&
        err.code === 'ERR_FRONTMATTER' &&
        err.file === F &&
        /^malformed YAML frontmatter: YAML with too many aliases/.test(err.message) &&
        !err.message.includes('\n'),
    );
  });

  it('names the line of the file the YAML error is on', () => {
    assert.throws(
      () => parseStateSource('---\nmodel: haiku\neffort: [low\n---\nx', F),
      (err: unknown) =>
        err instanceof RaymondError &&
        /^malformed YAML frontmatter \(line 3\): /.test(err.message) &&
        !/ at line \d/.test(err.message),
    );
  });

  it('reads fallback_models as a list or one name, and refuses anything else in one line', () => {
    const read = (v: string) =>
      parseStateSource(`---\nfallback_models: ${v}\n---\nx`, 'A.md').policy;
    assert.deepEqual(read('[sonnet, haiku]').fallbackModels, ['sonnet', 'haiku']);
    assert.deepEqual(read('haiku').fallbackModels, ['haiku']);
    assert.throws(() => read('{ a: 1 }'), {
      code: 'ERR_FRONTMATTER',
      file: 'A.md',
      message: /^fallback_models must be a model name or a list of them, like \[sonnet, haiku\]/,
    });
    assert.throws(() => read('[sonnet, 3]'), { code: 'ERR_FRONTMATTER' });
  });
});
