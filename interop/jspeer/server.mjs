// The official JS SDK's server (@a2a-js/sdk) serving the echo contract of
// examples/echo as A2A v0.3 only: its legacyCompat JSON-RPC and HTTP+JSON
// handlers, its LegacyA2AService over gRPC, the v0.3 card (every interface
// at protocolVersion 0.3) and the legacy-aware push sender. Driven by
// ../jspeer_test.go, which runs a2agen's v0.3 clients against it.
//
//	node server.mjs
//
// Prints one line per endpoint, card first ("card URL", "jsonrpc URL",
// "rest URL", "grpc host:port"), and serves on loopback until standard
// input closes or SIGTERM arrives.

import express from 'express';
import { Server, ServerCredentials } from '@grpc/grpc-js';
import { AGENT_CARD_PATH, Role, TaskState } from '@a2a-js/sdk';
import {
  AgentEvent,
  DefaultRequestHandler,
  InMemoryPushNotificationStore,
  InMemoryTaskStore,
} from '@a2a-js/sdk/server';
import { agentCardHandler, jsonRpcHandler, restHandler, UserBuilder } from '@a2a-js/sdk/server/express';
import { A2AService, grpcService } from '@a2a-js/sdk/server/grpc';
import { LegacyA2AService, legacyGrpcService } from '@a2a-js/sdk/compat/v0_3/server/grpc';
import { createLegacyAwarePushNotificationSender } from '@a2a-js/sdk/compat/v0_3/server';

let ids = 0;
const newID = () => `js-${process.pid}-${Date.now()}-${++ids}`;

const textPart = (text) => ({ content: { $case: 'text', value: text }, metadata: undefined, filename: '', mediaType: '' });
const partsText = (parts) => (parts ?? []).map((p) => (p?.content?.$case === 'text' ? p.content.value : '')).join('');

function agentMessage(ctx, text) {
  return {
    messageId: newID(),
    contextId: ctx.contextId,
    taskId: ctx.taskId,
    role: Role.ROLE_AGENT,
    parts: [textPart(text)],
    metadata: undefined,
    extensions: [],
    referenceTaskIds: [],
  };
}

const status = (state, message) => ({ state, message, timestamp: new Date().toISOString() });

function statusUpdate(ctx, state, message) {
  return AgentEvent.statusUpdate({ taskId: ctx.taskId, contextId: ctx.contextId, status: status(state, message), metadata: undefined });
}

function artifactUpdate(ctx, artifactId, text, append, lastChunk) {
  return AgentEvent.artifactUpdate({
    taskId: ctx.taskId,
    contextId: ctx.contextId,
    artifact: { artifactId, name: '', description: '', parts: [textPart(text)], metadata: undefined, extensions: [] },
    append,
    lastChunk,
    metadata: undefined,
  });
}

// sleep waits ms or until signal aborts; it reports whether the time passed.
function sleep(ms, signal) {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve(false);
    const t = setTimeout(() => resolve(true), ms);
    signal.addEventListener('abort', () => (clearTimeout(t), resolve(false)), { once: true });
  });
}

// The echo contract (examples/echo, issue 5) as a JS SDK AgentExecutor.
class EchoExecutor {
  running = new Map(); // task id → { abort, ctx } of its execution

  async execute(ctx, bus) {
    const text = partsText(ctx.userMessage.parts).trim();
    const echo = 'Echo: ' + text;
    const [first = '', arg] = text.split(/\s+/);
    const word = first.toLowerCase();

    // A follow-up to a task waiting for input completes it, whatever it says.
    if (ctx.task && ctx.task.status?.state === TaskState.TASK_STATE_INPUT_REQUIRED) {
      bus.publish(AgentEvent.task(ctx.task));
      bus.publish(artifactUpdate(ctx, newID(), echo, false, true));
      bus.publish(statusUpdate(ctx, TaskState.TASK_STATE_COMPLETED));
      bus.finished();
      return;
    }
    if (word === 'message') {
      bus.publish(AgentEvent.message({ ...agentMessage(ctx, echo), taskId: '' }));
      bus.finished();
      return;
    }
    bus.publish(
      AgentEvent.task(
        ctx.task ?? {
          id: ctx.taskId,
          contextId: ctx.contextId,
          status: status(TaskState.TASK_STATE_SUBMITTED),
          artifacts: [],
          history: [ctx.userMessage],
          metadata: undefined,
        }
      )
    );
    const abort = new AbortController();
    this.running.set(ctx.taskId, { abort, ctx });
    try {
      switch (word) {
        case 'stream': {
          const n = Math.min(Math.max(Number.parseInt(arg, 10) || 3, 1), 50);
          bus.publish(statusUpdate(ctx, TaskState.TASK_STATE_WORKING));
          const id = newID();
          for (let i = 1; i <= n; i++) {
            if (i > 1 && !(await sleep(10, abort.signal))) return;
            bus.publish(artifactUpdate(ctx, id, `chunk ${i}/${n};`, i > 1, i === n));
          }
          bus.publish(statusUpdate(ctx, TaskState.TASK_STATE_COMPLETED));
          break;
        }
        case 'input':
          bus.publish(statusUpdate(ctx, TaskState.TASK_STATE_INPUT_REQUIRED, agentMessage(ctx, 'Echo needs more input: reply with any text to complete the task.')));
          break;
        case 'slow': {
          const ms = Number.parseInt(arg, 10);
          bus.publish(statusUpdate(ctx, TaskState.TASK_STATE_WORKING));
          if (!(await sleep(Number.isNaN(ms) ? 1000 : Math.min(Math.max(ms, 0), 600000), abort.signal))) return;
          bus.publish(artifactUpdate(ctx, newID(), echo, false, true));
          bus.publish(statusUpdate(ctx, TaskState.TASK_STATE_COMPLETED));
          break;
        }
        case 'fail':
          bus.publish(statusUpdate(ctx, TaskState.TASK_STATE_WORKING));
          bus.publish(statusUpdate(ctx, TaskState.TASK_STATE_FAILED, agentMessage(ctx, 'Echo failed the task as asked.')));
          break;
        case 'reject':
          bus.publish(statusUpdate(ctx, TaskState.TASK_STATE_REJECTED, agentMessage(ctx, 'Echo rejected the task as asked.')));
          break;
        default:
          bus.publish(artifactUpdate(ctx, newID(), echo, false, true));
          bus.publish(statusUpdate(ctx, TaskState.TASK_STATE_COMPLETED));
      }
    } finally {
      this.running.delete(ctx.taskId);
      bus.finished();
    }
  }

  // cancelTask publishes CANCELED before it stops the execution, whose
  // end closes the bus.
  async cancelTask(taskId, bus) {
    const run = this.running.get(taskId);
    const ctx = run?.ctx ?? { taskId, contextId: '' };
    bus.publish(statusUpdate(ctx, TaskState.TASK_STATE_CANCELED, agentMessage(ctx, 'Echo canceled the task.')));
    if (run) run.abort.abort();
    else bus.finished();
  }
}

// --- listeners first: the card names their addresses -------------------------

const app = express();
const httpServer = await new Promise((resolve, reject) => {
  const s = app.listen(0, '127.0.0.1', () => resolve(s));
  s.on('error', reject);
});
const base = `http://127.0.0.1:${httpServer.address().port}`;
const grpcServer = new Server();
const grpcPort = await new Promise((resolve, reject) =>
  grpcServer.bindAsync('127.0.0.1:0', ServerCredentials.createInsecure(), (err, port) => (err ? reject(err) : resolve(port)))
);
const grpcAddr = `127.0.0.1:${grpcPort}`;

const iface = (url, protocolBinding) => ({ url, protocolBinding, tenant: '', protocolVersion: '0.3' });
const skill = (id, name, description) => ({
  id,
  name,
  description,
  tags: ['echo', 'test'],
  examples: [],
  inputModes: [],
  outputModes: [],
  securityRequirements: [],
});
const card = {
  name: 'echo',
  description: 'The echo contract of a2agen examples/echo, served by the official JS SDK as A2A v0.3.',
  supportedInterfaces: [iface(`${base}/a2a/jsonrpc`, 'JSONRPC'), iface(`${base}/a2a/rest`, 'HTTP+JSON'), iface(grpcAddr, 'GRPC')],
  provider: undefined,
  version: '1.0.0',
  documentationUrl: '',
  capabilities: { streaming: true, pushNotifications: true, extensions: [], extendedAgentCard: true },
  securitySchemes: {},
  securityRequirements: [],
  defaultInputModes: ['text/plain'],
  defaultOutputModes: ['text/plain'],
  skills: [skill('echo', 'Echo', 'Replies with the text it received.')],
  signatures: [],
  iconUrl: '',
};
const extendedCard = { ...card, skills: [...card.skills, skill('echo-extended', 'Echo (extended)', 'Only on the extended card.')] };

const taskStore = new InMemoryTaskStore();
const pushStore = new InMemoryPushNotificationStore();
const requestHandler = new DefaultRequestHandler(
  card,
  taskStore,
  new EchoExecutor(),
  undefined,
  pushStore,
  createLegacyAwarePushNotificationSender(pushStore, { timeout: 5000 }),
  // A provider function: the SDK gives a plain extended card only to
  // authenticated users, and this agent has no authentication.
  async () => extendedCard
);

app.use(`/${AGENT_CARD_PATH}`, agentCardHandler({ agentCardProvider: requestHandler, legacyCompat: { enabled: true } }));
const userBuilder = UserBuilder.noAuthentication;
app.use('/a2a/jsonrpc', jsonRpcHandler({ requestHandler, userBuilder, legacyCompat: { enabled: true } }));
app.use('/a2a/rest', restHandler({ requestHandler, userBuilder, legacyCompat: { enabled: true } }));
grpcServer.addService(A2AService, grpcService({ requestHandler, userBuilder }));
grpcServer.addService(LegacyA2AService, legacyGrpcService({ requestHandler, userBuilder }));

process.stdout.write(`card ${base}/${AGENT_CARD_PATH}\njsonrpc ${base}/a2a/jsonrpc\nrest ${base}/a2a/rest\ngrpc ${grpcAddr}\n`);

function stop() {
  httpServer.closeAllConnections?.();
  httpServer.close();
  grpcServer.forceShutdown();
  process.exit(0);
}
process.stdin.on('end', stop);
process.stdin.on('close', stop);
process.stdin.resume();
process.on('SIGTERM', stop);
