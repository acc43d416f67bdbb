// The official JS SDK's v0.3 client (@a2a-js/sdk, its legacyCompat
// transports) running the echo contract's scenarios against one binding of
// an agent, one JSON report per step on standard output (the shape
// sdkpeer's client prints, read by ../jspeer_test.go).
//
//	node client.mjs --card URL --binding JSONRPC|HTTP+JSON|GRPC [--webhook URL] [--bearer TOKEN]
//
// Exit status 0 when every step passed, 1 otherwise, 2 on bad usage.

import { parseArgs } from 'node:util';
import { credentials } from '@grpc/grpc-js';
import { Role, TaskState } from '@a2a-js/sdk';
import {
  ClientFactory,
  ClientFactoryOptions,
  DefaultAgentCardResolver,
  JsonRpcTransportFactory,
  RestTransportFactory,
} from '@a2a-js/sdk/client';
import { GrpcTransportFactory } from '@a2a-js/sdk/client/grpc';

const { values: flags } = parseArgs({
  options: {
    card: { type: 'string' },
    binding: { type: 'string', default: 'JSONRPC' },
    webhook: { type: 'string', default: '' },
    bearer: { type: 'string', default: '' },
    version: { type: 'string', default: '0.3' },
    timeout: { type: 'string', default: '15000' },
  },
});
if (!flags.card || !['JSONRPC', 'HTTP+JSON', 'GRPC'].includes(flags.binding)) {
  console.error('usage: node client.mjs --card URL --binding JSONRPC|HTTP+JSON|GRPC [--webhook URL] [--bearer TOKEN]');
  process.exit(2);
}
const stepTimeout = Number(flags.timeout);
const legacyCompat = { enabled: true };

// --- the client --------------------------------------------------------------

// The card is resolved the way the SDK's resolver does with legacyCompat on;
// the client is then built from that card restricted to the interfaces of one
// binding and protocol version, so that exactly that transport is used.
const resolver = new DefaultAgentCardResolver({ legacyCompat });
const cardURL = new URL(flags.card);
const card = await resolver.resolve(cardURL.origin, cardURL.pathname);
const only = {
  ...card,
  supportedInterfaces: (card.supportedInterfaces ?? []).filter(
    (i) => i.protocolBinding === flags.binding && String(i.protocolVersion).startsWith(flags.version)
  ),
};
if (only.supportedInterfaces.length === 0) {
  console.error(`card ${flags.card} lists no ${flags.binding} interface of version ${flags.version}`);
  process.exit(1);
}
const factory = new ClientFactory(
  ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
    cardResolver: resolver,
    transports: [
      new JsonRpcTransportFactory({ legacyCompat }),
      new RestTransportFactory({ legacyCompat }),
      new GrpcTransportFactory({ legacyCompat, grpcChannelCredentials: credentials.createInsecure() }),
    ],
  })
);
const client = await factory.createFromAgentCard(only);

// --- reporting ---------------------------------------------------------------

const failed = [];
let scenario = '';

// step runs one operation with its own deadline and prints its report; fn
// fills rep.fields and throws when an expectation fails.
async function step(name, op, fn) {
  const rep = { scenario, binding: flags.binding, step: name, op, ok: true, fields: {} };
  const signal = AbortSignal.timeout(stepTimeout);
  try {
    await fn(rep, { signal });
  } catch (err) {
    rep.ok = false;
    rep.problem = String(err?.message ?? err);
    failed.push(`${scenario}/${name}`);
  }
  if (Object.keys(rep.fields).length === 0) delete rep.fields;
  process.stdout.write(JSON.stringify(rep) + '\n');
  return rep.ok;
}

function check(cond, msg) {
  if (!cond) throw new Error(msg);
}

// reasonOf names the A2A error the SDK decoded (its ErrorInfo reason), or
// UNRECOGNIZED for anything else (a transport or decoding failure). The v0.3
// JSON-RPC transport throws a plain Error for an error event in a stream,
// with the typed error as its cause; that cause counts, marked "(cause)".
function reasonOf(err) {
  if (typeof err?.reason === 'string' && err.reason) return err.reason;
  if (typeof err?.cause?.reason === 'string' && err.cause.reason) return err.cause.reason + ' (cause)';
  return 'UNRECOGNIZED';
}

// wantReason runs call and expects it to fail with the A2A error named.
async function wantReason(rep, reason, call) {
  try {
    await call();
  } catch (err) {
    rep.reason = reasonOf(err);
    rep.error = `${err?.constructor?.name ?? 'Error'}: ${err?.message ?? err}`;
    check(rep.reason.replace(/ \(cause\)$/, '') === reason, `error ${rep.reason} (${rep.error}), want ${reason}`);
    return;
  }
  throw new Error(`succeeded, want error ${reason}`);
}

// --- helpers -----------------------------------------------------------------

let ids = 0;
const newID = () => `js-${process.pid}-${Date.now()}-${++ids}`;

function userMessage(text, extra = {}) {
  return {
    messageId: newID(),
    contextId: '',
    taskId: '',
    role: Role.ROLE_USER,
    parts: [{ content: { $case: 'text', value: text }, metadata: undefined, filename: '', mediaType: '' }],
    metadata: undefined,
    extensions: [],
    referenceTaskIds: [],
    ...extra,
  };
}

function request(message, configuration) {
  return { tenant: '', message, configuration, metadata: undefined };
}

function config(extra = {}) {
  return { acceptedOutputModes: [], taskPushNotificationConfig: undefined, returnImmediately: false, ...extra };
}

const partsText = (parts) => (parts ?? []).map((p) => (p?.content?.$case === 'text' ? p.content.value : '')).join('');
const stateName = (s) => (TaskState[s] ?? String(s)).replace(/^TASK_STATE_/, '');
const artifactTexts = (task) => (task.artifacts ?? []).map((a) => partsText(a.parts));

// The SDK's sendMessage answers the Task or the Message itself; a
// StreamResponse-like wrapper is unwrapped too.
function asTask(res) {
  if (res?.payload?.$case === 'task') return res.payload.value;
  if (res?.payload?.$case === 'message') return null;
  if (res && 'status' in res && 'id' in res) return res;
  return null;
}
function asMessage(res) {
  if (res?.payload?.$case === 'message') return res.payload.value;
  if (res && 'messageId' in res && 'role' in res) return res;
  return null;
}

async function sendTask(rep, opts, message, configuration) {
  const res = await client.sendMessage(request(message, configuration), opts);
  const task = asTask(res);
  check(task, `result ${JSON.stringify(res)}, want a Task`);
  rep.fields.taskId = task.id;
  rep.fields.state = stateName(task.status?.state);
  return task;
}

function wantState(task, state) {
  check(task.status?.state === state, `task ${task.id} is ${stateName(task.status?.state)}, want ${stateName(state)}`);
}

function wantArtifacts(task, ...want) {
  const got = artifactTexts(task);
  check(JSON.stringify(got) === JSON.stringify(want), `artifacts ${JSON.stringify(got)}, want ${JSON.stringify(want)}`);
}

// describe renders a stream event as the Go tests do: task:STATE,
// status:STATE, artifact[+]:text[last], message:text.
function describe(ev) {
  const c = ev?.payload?.$case;
  const v = ev?.payload?.value;
  switch (c) {
    case 'task':
      return 'task:' + stateName(v.status?.state);
    case 'statusUpdate':
      return 'status:' + stateName(v.status?.state);
    case 'artifactUpdate':
      return 'artifact' + (v.append ? '+' : '') + ':' + partsText(v.artifact?.parts) + (v.lastChunk ? '[last]' : '');
    case 'message':
      return 'message:' + partsText(v.parts);
    default:
      return 'unknown:' + JSON.stringify(ev);
  }
}

async function collect(gen, rep) {
  const events = [];
  for await (const ev of gen) events.push(describe(ev));
  rep.fields.events = events;
  return events;
}

async function waitTerminal(opts, id) {
  const terminal = [TaskState.TASK_STATE_COMPLETED, TaskState.TASK_STATE_FAILED, TaskState.TASK_STATE_CANCELED, TaskState.TASK_STATE_REJECTED];
  for (;;) {
    const task = await client.getTask({ tenant: '', id, historyLength: undefined }, opts);
    if (terminal.includes(task.status?.state)) return task;
    await new Promise((r) => setTimeout(r, 50));
  }
}

const unknown = 'interop-no-such-task-' + newID();

// --- scenarios ---------------------------------------------------------------

async function scenarioSend() {
  scenario = 'send';
  await step('hello-completes-with-echo-artifact', 'SendMessage', async (rep, opts) => {
    const task = await sendTask(rep, opts, userMessage('hello'));
    wantState(task, TaskState.TASK_STATE_COMPLETED);
    wantArtifacts(task, 'Echo: hello');
    check(task.contextId !== '', 'task has no contextId');
  });
  await step('message-answers-without-task', 'SendMessage', async (rep, opts) => {
    const res = await client.sendMessage(request(userMessage('message hi there')), opts);
    const msg = asMessage(res);
    check(msg, `result ${JSON.stringify(res)}, want a direct Message`);
    rep.fields.text = partsText(msg.parts);
    check(msg.role === Role.ROLE_AGENT, `role ${msg.role}, want ROLE_AGENT`);
    check(partsText(msg.parts) === 'Echo: message hi there', `text ${partsText(msg.parts)}`);
  });
  await step('client-contextId-kept', 'SendMessage', async (rep, opts) => {
    const contextId = 'interop-ctx-' + newID();
    const task = await sendTask(rep, opts, userMessage('hello context', { contextId }));
    check(task.contextId === contextId, `contextId ${task.contextId}, want ${contextId}`);
  });
  let input;
  await step('input-required-with-agent-message', 'SendMessage', async (rep, opts) => {
    input = await sendTask(rep, opts, userMessage('input'));
    wantState(input, TaskState.TASK_STATE_INPUT_REQUIRED);
    check(partsText(input.status?.message?.parts) !== '', 'no status message');
  });
  await step('follow-up-completes-input-task', 'SendMessage', async (rep, opts) => {
    check(input, 'no INPUT_REQUIRED task from the previous step');
    const task = await sendTask(rep, opts, userMessage('more words', { taskId: input.id, contextId: input.contextId }));
    check(task.id === input.id, `task ${task.id}, want ${input.id}`);
    wantState(task, TaskState.TASK_STATE_COMPLETED);
    wantArtifacts(task, 'Echo: more words');
  });
  await step('fail-ends-failed-with-message', 'SendMessage', async (rep, opts) => {
    const task = await sendTask(rep, opts, userMessage('fail'));
    wantState(task, TaskState.TASK_STATE_FAILED);
    check(partsText(task.status?.message?.parts) !== '', 'no status message');
  });
  await step('reject-ends-rejected-with-message', 'SendMessage', async (rep, opts) => {
    const task = await sendTask(rep, opts, userMessage('REJECT please'));
    wantState(task, TaskState.TASK_STATE_REJECTED);
    check(partsText(task.status?.message?.parts) !== '', 'no status message');
  });
  await step('returnImmediately-then-poll', 'SendMessage+GetTask', async (rep, opts) => {
    const task = await sendTask(rep, opts, userMessage('slow 300'), config({ returnImmediately: true }));
    check(task.status?.state !== TaskState.TASK_STATE_COMPLETED, 'returnImmediately answered a completed task');
    const done = await waitTerminal(opts, task.id);
    wantState(done, TaskState.TASK_STATE_COMPLETED);
    wantArtifacts(done, 'Echo: slow 300');
  });
}

async function scenarioTasks() {
  scenario = 'tasks';
  let task;
  await step('get-task-with-history', 'GetTask', async (rep, opts) => {
    task = await sendTask(rep, opts, userMessage('hello history'));
    const got = await client.getTask({ tenant: '', id: task.id, historyLength: undefined }, opts);
    wantState(got, TaskState.TASK_STATE_COMPLETED);
    wantArtifacts(got, 'Echo: hello history');
    rep.fields.history = got.history?.length ?? 0;
    check((got.history ?? []).some((m) => partsText(m.parts) === 'hello history'), 'history lacks the user message');
  });
  await step('get-task-historyLength-1', 'GetTask', async (rep, opts) => {
    check(task, 'no task from the previous step');
    const got = await client.getTask({ tenant: '', id: task.id, historyLength: 1 }, opts);
    rep.fields.history = got.history?.length ?? 0;
    check((got.history ?? []).length <= 1, `${got.history.length} history messages, want at most 1`);
  });
  // v0.3 has no ListTasks on JSON-RPC and none in its proto: the call must
  // fail (how depends on the binding: the SDK refuses it itself, or sends
  // tasks/list, which a v0.3 server does not know).
  await step('list-tasks-is-not-in-v0.3', 'ListTasks', async (rep, opts) => {
    try {
      await client.listTasks({ tenant: '', contextId: task?.contextId ?? '', status: 0, pageSize: 10, pageToken: '', historyLength: undefined, statusTimestampAfter: undefined, includeArtifacts: false }, opts);
    } catch (err) {
      rep.reason = reasonOf(err);
      rep.error = String(err?.message ?? err);
      return;
    }
    throw new Error('ListTasks succeeded over v0.3');
  });
}

async function scenarioCancel() {
  scenario = 'cancel';
  await step('cancel-working-task', 'CancelTask', async (rep, opts) => {
    const task = await sendTask(rep, opts, userMessage('slow 10000'), config({ returnImmediately: true }));
    const got = await client.cancelTask({ tenant: '', id: task.id, metadata: undefined }, opts);
    rep.fields.cancelState = stateName(got.status?.state);
    wantState(got, TaskState.TASK_STATE_CANCELED);
  });
  await step('cancel-terminal-task', 'CancelTask', async (rep, opts) => {
    const task = await sendTask(rep, opts, userMessage('hello'));
    await wantReason(rep, 'TASK_NOT_CANCELABLE', () => client.cancelTask({ tenant: '', id: task.id, metadata: undefined }, opts));
  });
}

async function scenarioErrors() {
  scenario = 'errors';
  await step('get-unknown-task', 'GetTask', (rep, opts) =>
    wantReason(rep, 'TASK_NOT_FOUND', () => client.getTask({ tenant: '', id: unknown, historyLength: undefined }, opts))
  );
  await step('cancel-unknown-task', 'CancelTask', (rep, opts) =>
    wantReason(rep, 'TASK_NOT_FOUND', () => client.cancelTask({ tenant: '', id: unknown, metadata: undefined }, opts))
  );
  await step('message-to-unknown-task', 'SendMessage', (rep, opts) =>
    wantReason(rep, 'TASK_NOT_FOUND', () => client.sendMessage(request(userMessage('hello', { taskId: unknown })), opts))
  );
  await step('resubscribe-unknown-task', 'SubscribeToTask', (rep, opts) =>
    wantReason(rep, 'TASK_NOT_FOUND', () => collect(client.resubscribeTask({ tenant: '', id: unknown }, opts), rep))
  );
  await step('push-config-of-unknown-task', 'GetTaskPushNotificationConfig', (rep, opts) =>
    wantReason(rep, 'TASK_NOT_FOUND', () => client.getTaskPushNotificationConfig({ tenant: '', taskId: unknown, id: 'interop-missing' }, opts))
  );
  await step('list-push-configs-of-unknown-task', 'ListTaskPushNotificationConfigs', (rep, opts) =>
    wantReason(rep, 'TASK_NOT_FOUND', () => client.listTaskPushNotificationConfig({ tenant: '', taskId: unknown, pageSize: 0, pageToken: '' }, opts))
  );
  await step('create-push-config-for-unknown-task', 'CreateTaskPushNotificationConfig', (rep, opts) =>
    wantReason(rep, 'TASK_NOT_FOUND', () =>
      client.createTaskPushNotificationConfig({ tenant: '', id: 'interop-cfg', taskId: unknown, url: 'http://127.0.0.1:9/never', token: '', authentication: undefined }, opts)
    )
  );
}

async function scenarioStream() {
  scenario = 'stream';
  await step('stream-5-chunks', 'SendStreamingMessage', async (rep, opts) => {
    const events = await collect(client.sendMessageStream(request(userMessage('stream 5')), opts), rep);
    const want = ['task:SUBMITTED', 'status:WORKING', 'artifact:chunk 1/5;', 'artifact+:chunk 2/5;', 'artifact+:chunk 3/5;', 'artifact+:chunk 4/5;', 'artifact+:chunk 5/5;[last]', 'status:COMPLETED'];
    check(JSON.stringify(events) === JSON.stringify(want), `events ${JSON.stringify(events)}, want ${JSON.stringify(want)}`);
  });
  await step('stream-message-is-one-event', 'SendStreamingMessage', async (rep, opts) => {
    const events = await collect(client.sendMessageStream(request(userMessage('message streamed')), opts), rep);
    check(JSON.stringify(events) === JSON.stringify(['message:Echo: message streamed']), `events ${JSON.stringify(events)}`);
  });
  await step('stream-ends-at-input-required', 'SendStreamingMessage', async (rep, opts) => {
    const events = await collect(client.sendMessageStream(request(userMessage('input')), opts), rep);
    check(events.at(-1) === 'status:INPUT_REQUIRED', `events ${JSON.stringify(events)}, want the last one status:INPUT_REQUIRED`);
  });
}

async function scenarioResubscribe() {
  scenario = 'resubscribe';
  await step('resubscribe-sees-completion', 'SubscribeToTask', async (rep, opts) => {
    const task = await sendTask(rep, opts, userMessage('slow 500'), config({ returnImmediately: true }));
    const events = await collect(client.resubscribeTask({ tenant: '', id: task.id }, opts), rep);
    check(events.length > 0 && events.at(-1) === 'status:COMPLETED', `events ${JSON.stringify(events)}, want them to end with status:COMPLETED`);
  });
  await step('subscriber-sees-cancel', 'SubscribeToTask+CancelTask', async (rep, opts) => {
    const task = await sendTask(rep, opts, userMessage('slow 10000'), config({ returnImmediately: true }));
    // The subscription's outcome is kept (not left to reject unhandled
    // while the cancel is sent) and checked after it.
    const sub = collect(client.resubscribeTask({ tenant: '', id: task.id }, opts), rep).then(
      (events) => ({ events }),
      (err) => ({ err })
    );
    await new Promise((r) => setTimeout(r, 200));
    await client.cancelTask({ tenant: '', id: task.id, metadata: undefined }, opts);
    const { events, err } = await sub;
    if (err) throw err;
    check(events.at(-1) === 'status:CANCELED', `events ${JSON.stringify(events)}, want them to end with status:CANCELED`);
  });
  await step('resubscribe-terminal-task', 'SubscribeToTask', async (rep, opts) => {
    const task = await sendTask(rep, opts, userMessage('hello'));
    try {
      const events = await collect(client.resubscribeTask({ tenant: '', id: task.id }, opts), rep);
      rep.fields.answer = 'events';
      check(events.length <= 1, `events ${JSON.stringify(events)}, want at most the task`);
    } catch (err) {
      rep.reason = reasonOf(err);
      rep.error = String(err?.message ?? err);
      check(['UNSUPPORTED_OPERATION', 'TASK_NOT_FOUND'].includes(rep.reason.replace(/ \(cause\)$/, '')), `error ${rep.reason} (${rep.error})`);
    }
  });
}

async function scenarioCard() {
  scenario = 'card';
  await step('card-is-v0.3', 'GetAgentCard', async (rep) => {
    rep.fields.interfaces = only.supportedInterfaces.map((i) => `${i.protocolBinding} ${i.protocolVersion} ${i.url}`);
    check(card.name === 'echo', `card name ${card.name}, want echo`);
    check(client.protocolVersion.startsWith('0.3'), `client protocol version ${client.protocolVersion}, want 0.3`);
  });
  await step('extended-card-with-bearer', 'GetExtendedAgentCard', async (rep, opts) => {
    const ext = await client.getAgentCard({ ...opts, serviceParameters: { authorization: `Bearer ${flags.bearer}` } });
    rep.fields.name = ext.name;
    rep.fields.skills = (ext.skills ?? []).map((s) => s.id);
    check((ext.skills ?? []).length > (card.skills ?? []).length, `extended card has ${ext.skills?.length} skills, the public card ${card.skills?.length}: want more`);
  });
}

async function scenarioPush() {
  scenario = 'push';
  let task;
  const configId = 'interop-js-' + newID();
  await step('start-slow-task', 'SendMessage', async (rep, opts) => {
    task = await sendTask(rep, opts, userMessage('slow 1500'), config({ returnImmediately: true }));
  });
  if (!task) return;
  await step('create-push-config', 'CreateTaskPushNotificationConfig', async (rep, opts) => {
    const token = 'js-push-token-' + task.id;
    const got = await client.createTaskPushNotificationConfig(
      { tenant: '', id: configId, taskId: task.id, url: flags.webhook, token, authentication: { scheme: 'Bearer', credentials: 'push-secret' } },
      opts
    );
    rep.fields.config = got;
    rep.fields.taskId = task.id;
    rep.fields.token = token;
    check(got.taskId === task.id && got.url === flags.webhook, `config ${JSON.stringify(got)}`);
    check(got.id === configId, `config id ${got.id}, want ${configId}`);
  });
  await step('get-push-config', 'GetTaskPushNotificationConfig', async (rep, opts) => {
    const got = await client.getTaskPushNotificationConfig({ tenant: '', taskId: task.id, id: configId }, opts);
    rep.fields.config = got;
    check(got.url === flags.webhook && got.id === configId, `config ${JSON.stringify(got)}`);
  });
  await step('list-push-configs', 'ListTaskPushNotificationConfigs', async (rep, opts) => {
    const got = await client.listTaskPushNotificationConfig({ tenant: '', taskId: task.id, pageSize: 0, pageToken: '' }, opts);
    const ids = (got.configs ?? []).map((c) => c.id);
    rep.fields.ids = ids;
    check(ids.includes(configId), `configs ${JSON.stringify(ids)}, want ${configId}`);
  });
  await step('task-completes', 'GetTask', async (rep, opts) => {
    const done = await waitTerminal(opts, task.id);
    rep.fields.taskId = task.id;
    wantState(done, TaskState.TASK_STATE_COMPLETED);
  });
  await step('delete-push-config', 'DeleteTaskPushNotificationConfig', async (rep, opts) => {
    await client.deleteTaskPushNotificationConfig({ tenant: '', taskId: task.id, id: configId }, opts);
  });
  await step('get-deleted-push-config', 'GetTaskPushNotificationConfig', (rep, opts) =>
    wantReason(rep, 'TASK_NOT_FOUND', () => client.getTaskPushNotificationConfig({ tenant: '', taskId: task.id, id: configId }, opts))
  );
  await step('inline-push-config', 'SendMessage', async (rep, opts) => {
    const token = 'js-inline-token-' + newID();
    const pushConfig = { tenant: '', id: '', taskId: '', url: flags.webhook, token, authentication: { scheme: 'Bearer', credentials: 'push-secret' } };
    const t = await sendTask(rep, opts, userMessage('slow 300'), config({ returnImmediately: true, taskPushNotificationConfig: pushConfig }));
    rep.fields.token = token;
    const done = await waitTerminal(opts, t.id);
    wantState(done, TaskState.TASK_STATE_COMPLETED);
  });
}

await scenarioSend();
await scenarioTasks();
await scenarioCancel();
await scenarioErrors();
await scenarioStream();
await scenarioResubscribe();
await scenarioCard();
if (flags.webhook) await scenarioPush();

if (failed.length > 0) {
  console.error(`${failed.length} step(s) failed: ${failed.join(', ')}`);
  process.exitCode = 1;
}
