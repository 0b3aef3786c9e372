import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import {
  ElicitRequestSchema,
  type CallToolResult,
  type ElicitRequest,
  type ElicitResult,
} from '@modelcontextprotocol/sdk/types.js';
import { CLI } from './cli.js';

/** The structured result every Raymond tool gives. */
export interface Report {
  run_id: string;
  workflow_id: string;
  status: string;
  cost_usd: number;
  budget_usd: number;
  steps: number;
  result?: string;
  error?: string;
  asks: Array<{ ask_id: string; agent_id: string; question: string }>;
}

/** A tool call's answer: its text, its report, and whether it is an error. */
export interface Called {
  text: string;
  report: Report;
  isError: boolean;
}

/** An MCP client of the built `raymond mcp`, started as Claude Code starts it: a child on stdio. */
export class McpSession {
  stderr = '';
  readonly progress: string[] = [];
  private constructor(
    readonly client: Client,
    readonly transport: StdioClientTransport,
  ) {}

  /**
   * Starts `raymond mcp ARGS` in `cwd`. With `elicit`, the client declares
   * form elicitation and answers each question with what `elicit` returns.
   */
  static async start(
    cwd: string,
    args: string[],
    opts: {
      env?: Record<string, string>;
      elicit?: (req: ElicitRequest['params']) => ElicitResult | Promise<ElicitResult>;
    } = {},
  ): Promise<McpSession> {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [CLI, 'mcp', ...args],
      cwd,
      stderr: 'pipe',
      ...(opts.env ? { env: opts.env } : {}),
    });
    const client = new Client(
      { name: 'raymond-test', version: '1.0.0' },
      { capabilities: opts.elicit ? { elicitation: { form: {} } } : {} },
    );
    if (opts.elicit) {
      const elicit = opts.elicit;
      client.setRequestHandler(ElicitRequestSchema, (req) => elicit(req.params));
    }
    const session = new McpSession(client, transport);
    transport.stderr?.on('data', (chunk: Buffer) => (session.stderr += chunk.toString()));
    await client.connect(transport);
    return session;
  }

  /** Calls a tool, collecting its progress messages. */
  async call(name: string, args: Record<string, unknown>): Promise<Called> {
    const r = (await this.client.callTool({ name, arguments: args }, undefined, {
      timeout: 120_000,
      onprogress: (p) => {
        if (p.message) this.progress.push(p.message);
      },
    })) as CallToolResult;
    const text = r.content
      .map((c) => (c.type === 'text' ? c.text : ''))
      .join('')
      .trim();
    return { text, report: r.structuredContent as unknown as Report, isError: r.isError === true };
  }

  /** Closes stdin, as a client that goes away does, and waits for the server to exit. */
  async close(): Promise<void> {
    await this.client.close();
  }
}
