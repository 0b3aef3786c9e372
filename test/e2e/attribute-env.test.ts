import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { Sandbox, sh, summary } from '../helpers/cli.js';

const box = new Sandbox();
after(() => box.remove());

// What a worker script reports about its environment: `unset` where a variable is absent.
const REPORT = [
  'item=$item',
  'bash_env=${BASH_ENV-unset}',
  'env=${ENV-unset}',
  'ld=${LD_PRELOAD-unset}',
  'node=${NODE_OPTIONS-unset}',
  'agent=$RAYMOND_AGENT_ID',
  'upper=${ITEM-unset}',
  'prefixed=$RAYMOND_ATTR_ITEM',
].join(' ');

describe('fork attributes in the environment of scripts', () => {
  it('cannot run a payload through BASH_ENV, ENV, LD_PRELOAD or NODE_OPTIONS, nor break the bash lookup with PATH; item still reaches $item', async () => {
    const wf = box.write(
      {
        'START.sh': sh(
          'printf \'touch "%s/pwned-$(basename "$0")"\\n\' "$PWD" > payload.sh',
          'printf \'require("fs").writeFileSync("%s/pwned-node", "")\\n\' "$PWD" > payload.cjs',
          'echo "<fork next=\\"DONE\\" item=\\"A\\" ITEM=\\"upper\\" BASH_ENV=\\"$PWD/payload.sh\\" ENV=\\"$PWD/payload.sh\\" LD_PRELOAD=\\"$PWD/payload.so\\" NODE_OPTIONS=\\"--require $PWD/payload.cjs\\" RAYMOND_AGENT_ID=\\"forged\\">WORKER</fork>"',
          'echo "<fork next=\\"DONE\\" item=\\"B\\" PATH=\\"/nonexistent\\">WORKER</fork>"',
        ),
        'WORKER.sh': sh('"$NODE_BIN" -e 0', `echo "<goto>SECOND</goto>"`),
        'SECOND.sh': sh(`echo "<result>${REPORT}</result>"`),
        'DONE.sh': sh('echo "<result>done</result>"'),
      },
      'payload',
    );
    const r = await box.run([wf, '--json', '--workflow-id', 'payload'], {
      NODE_BIN: process.execPath,
    });
    assert.equal(r.code, 0, r.stderr);
    const tail = 'env=unset ld=unset node=unset';
    assert.deepEqual(summary(r).results, {
      main: 'done',
      main_worker1: `item=A bash_env=unset ${tail} agent=main_worker1 upper=unset prefixed=upper`,
      main_worker2: `item=B bash_env=unset ${tail} agent=main_worker2 upper=unset prefixed=`,
    });
    for (const marker of ['pwned-WORKER.sh', 'pwned-SECOND.sh', 'pwned-node'])
      assert.equal(existsSync(join(box.dir, marker)), false, `${marker} exists: the payload ran`);
    // The attributes are kept as written, for templates and the record.
    const worker = box.state('payload').agents.find((a) => a.id === 'main_worker1')!;
    assert.match(worker.attributes.BASH_ENV!, /\/payload\.sh$/);
  });

  it("keeps yarn_* attributes (Yarn 1 reads them as its settings) out of a script's environment, and lint warns about them", async () => {
    const wf = box.write(
      {
        'START.sh': sh(
          'echo "<fork next=\\"DONE\\" item=\\"A\\" yarn_registry=\\"http://attacker.invalid/\\" yarn_strict_ssl=\\"false\\">WORKER</fork>"',
        ),
        'WORKER.sh': sh(
          'echo "<result>item=$item registry=${yarn_registry-unset} ssl=${yarn_strict_ssl-unset} prefixed=$RAYMOND_ATTR_yarn_registry</result>"',
        ),
        'DONE.sh': sh('echo "<result>done</result>"'),
      },
      'yarn',
    );
    const r = await box.run([wf, '--json']);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(
      summary(r).results.main_worker1,
      'item=A registry=unset ssl=unset prefixed=http://attacker.invalid/',
    );

    const md = box.write(
      {
        'START.md': 'Go <fork next="DONE" yarn_registry="http://attacker.invalid/">WORKER</fork>',
        'WORKER.sh': sh('echo "<result>w</result>"'),
        'DONE.sh': sh('echo "<result>done</result>"'),
      },
      'yarn-lint',
    );
    const lint = await box.run(['lint', md]);
    assert.equal(lint.code, 0, lint.stdout);
    assert.match(
      lint.stdout,
      /START\.md: warning attribute-not-in-env: <fork> sets yarn_registry="\.\.\." for WORKER, a script, which gets it only as \$RAYMOND_ATTR_yarn_registry/,
    );
  });
});
