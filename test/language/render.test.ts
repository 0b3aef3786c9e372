import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { renderTemplate, templateVariables } from '../../src/language/render.js';

describe('renderTemplate', () => {
  const vars = templateVariables({
    workflowId: 'wf-1',
    agentId: 'main_worker2',
    input: 'the input',
    attributes: { item: 'apple', agent_id: 'spoofed' },
  });

  it('fills input, its alias result, ids and fork attributes', () => {
    assert.equal(
      renderTemplate('{{input}}|{{result}}|{{workflow_id}}|{{agent_id}}|{{ item }}', vars),
      'the input|the input|wf-1|main_worker2|apple',
    );
  });

  it('leaves unset variables exactly as written', () => {
    assert.equal(
      renderTemplate('keep {{missing}} and {{ other }} and {{}}', vars),
      'keep {{missing}} and {{ other }} and {{}}',
    );
  });

  it('leaves {{input}} as written when there is no input', () => {
    const none = templateVariables({
      workflowId: 'w',
      agentId: 'main',
      input: null,
      attributes: {},
    });
    assert.equal(
      renderTemplate('got: {{input}} / {{result}}', none),
      'got: {{input}} / {{result}}',
    );
  });

  it('does not re-expand values that contain placeholders', () => {
    const v = templateVariables({
      workflowId: 'w',
      agentId: 'main',
      input: '{{agent_id}}',
      attributes: {},
    });
    assert.equal(renderTemplate('{{input}}', v), '{{agent_id}}');
  });

  it('keeps the built-ins over a fork attribute of the same name', () => {
    assert.equal(renderTemplate('{{agent_id}}', vars), 'main_worker2');
  });
});

describe('templateVariables: task folder', () => {
  it('gives {{task_folder}}, which no fork attribute overrides', () => {
    const vars = templateVariables({
      workflowId: 'wf',
      agentId: 'main',
      input: null,
      attributes: { task_folder: 'spoofed' },
      taskFolder: '/p/.raymond/tasks/wf/main',
    });
    assert.equal(
      renderTemplate('{{task_folder}}/report.md', vars),
      '/p/.raymond/tasks/wf/main/report.md',
    );
  });
});
