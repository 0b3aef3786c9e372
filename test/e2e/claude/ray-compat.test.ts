import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { raymond, readRunState, summary } from '../../helpers/cli.js';
import { ClaudeSandbox } from '../../helpers/claude-sandbox.js';

const box = new ClaudeSandbox();
before(() => box.start());
after(() => box.stop());

/**
 * A project as a `ray` user has it: a config written for `ray`, a folder
 * workflow using fixed-payload results, fork attributes, task="inherit" and
 * a cross-workflow call into a YAML workflow. What `ray`'s documents say it
 * does is what Raymond must do: the same results, policy decisions and task
 * folders.
 */
describe("a ray user's project runs unchanged (real claude, scripted API)", () => {
  it("config, folder workflow and YAML callee: results, policy decisions and task folders as ray's documents give them", async () => {
    const s = box.server;
    s.on('RC-START', {
      text: 'Forking. <fork next="DECIDE" item="alpha">WORKER</fork><fork next="DECIDE" item="beta" task="inherit">WORKER</fork>',
    });
    s.on('RC-WORKER', { text: 'done with it' });
    let decisions = 0;
    s.on('RC-DECIDE', () => {
      decisions++;
      if (decisions === 1) return { text: '<result>MAYBE</result>' };
      if (decisions === 2)
        return {
          text: '<call-workflow return="DECIDE" input="{{task_folder}}">../checks.yaml</call-workflow>',
        };
      return { text: '<result> YES </result>' };
    });
    const project = join(box.dir, 'project');
    box.write(
      {
        '.raymond/config.toml':
          '[raymond]\nname = "triage"\nverbose = false\ntimeout = 0\ntask_folder_pattern = "work/{workflow_id}/{agent_id}"\n\n[raymond.serve]\nport = 8080\nroots = ["flows"]\n',
        'flows/triage/1_START.md':
          '---\nallowed_transitions:\n  - { tag: fork, target: WORKER, next: DECIDE }\n---\nRC-START: fork one worker per item.\n',
        'flows/triage/WORKER.md':
          '---\nallowed_transitions:\n  - { tag: result, payload: DONE }\n---\nRC-WORKER {{item}} in {{task_folder}}\n',
        'flows/triage/DECIDE.md':
          '---\nallowed_transitions:\n  - { tag: result, payload: "YES" }\n  - { tag: result, payload: "NO" }\n  - { tag: call-workflow, target: ../checks.yaml, return: DECIDE }\n---\nRC-DECIDE: checks said [{{input}}]\n',
        'flows/checks.yaml':
          'id: checks\nname: Checks\nstates:\n  START:\n    sh: |\n      echo "<result>checked $RAYMOND_INPUT</result>"\n',
      },
      'project',
    );
    const r = await raymond(['flows/triage', '--json', '--workflow-id', 'rc'], {
      cwd: project,
      env: box.env(),
    });
    assert.equal(r.code, 0, r.stderr);
    assert.doesNotMatch(
      r.stderr,
      /config\.toml/,
      'a config written for ray loads without a warning',
    );

    const tasks = (agent: string) => join(project, 'work/rc', agent);
    const results = summary(r).results;
    assert.deepEqual(Object.fromEntries(Object.entries(results).map(([k, v]) => [k, v.trim()])), {
      main: 'YES',
      main_worker1: 'DONE',
      main_worker2: 'DONE',
    });

    // Task folders: the config's pattern; task="inherit" shares the parent's.
    // Read as Raymond reads it: a finished agent's default folder is not written, and comes back on reading.
    const state = readRunState(join(project, '.raymond/state/rc.json'));
    assert.deepEqual(Object.fromEntries(state.agents.map((a) => [a.id, a.task_folder])), {
      main: tasks('main'),
      main_worker1: tasks('main_worker1'),
      main_worker2: tasks('main'),
    });
    assert.ok(existsSync(tasks('main_worker1')));
    const workers = s.requestsFor('RC-WORKER').map((q) => q.prompt);
    assert.ok(
      workers.some((p) => p.includes(`RC-WORKER alpha in ${tasks('main_worker1')}`)),
      workers.join('\n'),
    );
    assert.ok(
      workers.some((p) => p.includes(`RC-WORKER beta in ${tasks('main')}`)),
      workers.join('\n'),
    );

    // Policy: a payload no entry fixes is refused and the model reminded; the cross-workflow call is allowed by its own entry.
    assert.match(
      r.stderr,
      /emitted <result>MAYBE<\/result>, which allowed_transitions does not allow/,
    );
    const asked = s.requestsFor('RC-DECIDE').map((q) => q.prompt);
    assert.equal(asked.length, 3);
    assert.match(asked[1]!, /<result>YES<\/result>/, 'the reminder lists the fixed payloads');
    // The callee's result came back as {{input}}, its input the caller's task folder ({{task_folder}} rendered, as ray does).
    assert.ok(asked[2]!.includes(`checks said [checked ${tasks('main')}]`), asked[2]);

    // ray's keys are taken: name labels the run, timeout = 0 means never.
    assert.equal(state.options.name, 'triage');
    assert.equal(state.options.timeout_seconds, 2147483);
  });
});
