#!/usr/bin/env node
// Real-client check with the official TypeScript SDK (@modelcontextprotocol/sdk, pinned in
// package.json): spawn the server over stdio, initialize, list tools, call `flow_validate` on a
// small valid document, and check what a user of the SDK relies on (flow_render, flow_simulate,
// flow_test with loose and strict cases and generate: true, flow_simulate with asTest run by
// flow_test, flow_schema's test file schema).
//
// usage: node ts-client.mjs [--expect VERSION] [--label TEXT] [--timeout SECONDS] -- COMMAND [ARGS...]
//
// Exits 0 and prints one summary line on success; prints one reason on stderr and exits 1
// otherwise (also when the whole session takes longer than the timeout, 30 s unless given, so CI
// never stalls; a server under an emulator such as qemu or Wine may need more).
import { readFileSync } from 'node:fs'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport, getDefaultEnvironment } from '@modelcontextprotocol/sdk/client/stdio.js'

const sdkVersion = JSON.parse(
  readFileSync(new URL('./node_modules/@modelcontextprotocol/sdk/package.json', import.meta.url), 'utf8'),
).version

// Version lockstep: the server must report the version the npm packages carry.
const packageVersion = JSON.parse(readFileSync(new URL('../../npm/mcp/package.json', import.meta.url), 'utf8')).version

const SIMULATION = {
  document: {
    version: 2,
    id: 'ts_client_sim',
    steps: [
      { id: 'size', kind: 'buttons', text: 'Size?', save: 'size', buttons: [{ id: 'small', title: 'Small' }, { id: 'large', title: 'Large' }] },
      { id: 'name', kind: 'ask', text: 'Name?', save: 'name' },
      { id: 'book', kind: 'action', handler: 'tickets.open', args: { name: '{{name}}' }, save: 'ticket' },
      { id: 'bye', kind: 'end', text: 'Ticket {{ticket}} for {{name}}, {{size}}.' },
    ],
  },
  replies: [{ tap: 'large' }, 'Ana'],
  handlers: { 'tickets.open': { returns: 'T-1' } },
}

// The flows of issue 37 the generator is tested on (crates/flow-runtime/test_data/generate).
function fixture(name) {
  return JSON.parse(readFileSync(new URL(`../../crates/flow-runtime/test_data/generate/${name}`, import.meta.url), 'utf8'))
}

const VALID_DOCUMENT = {
  version: 2,
  id: 'ts_client_check',
  steps: [
    { id: 'hello', kind: 'message', text: 'Hello {{contact_name}}!' },
    { id: 'bye', kind: 'end', text: 'Bye.' },
  ],
}

// A 150-step flow, as flow-render's benchmark flow (crates/flow-render/src/bench_flow.rs): too
// long to read in one image, so flow_render answers an overview and pages.
function longFlow(steps) {
  const list = []
  for (let i = 0; i < steps; i++) {
    const id = `step_${i}`
    if (i + 1 === steps) list.push({ id, kind: 'end', text: 'Bye' })
    else if (i % 10 === 3)
      list.push({ id, kind: 'buttons', text: 'Continue?', buttons: [
        { id: 'y', title: 'Yes, continue' }, { id: 'n', title: 'Start again', next: `step_${i - 3}` }] })
    else if (i % 10 === 7)
      list.push({ id, kind: 'branch', cases: [
        { when: { var: 'name', op: 'eq', value: 'x' }, next: `step_${Math.min(i + 5, steps - 1)}` }] })
    else list.push({ id, kind: 'message', text: `Message number ${i} of the flow` })
  }
  return { version: 2, id: 'bench', steps: list }
}

function pngSize(data) {
  const bytes = Buffer.from(data, 'base64')
  check(bytes.subarray(1, 4).toString() === 'PNG', 'flow_render image is not a PNG')
  return [bytes.readUInt32BE(16), bytes.readUInt32BE(20)]
}

function parseArgs(argv) {
  const options = { expect: '2025-11-25', label: 'ts-sdk', timeout: 30 }
  let i = 0
  for (; i < argv.length && argv[i] !== '--'; i++) {
    if (argv[i] === '--expect') options.expect = argv[++i]
    else if (argv[i] === '--label') options.label = argv[++i]
    else if (argv[i] === '--timeout') options.timeout = Number(argv[++i])
    else throw new Error(`unknown option ${argv[i]}`)
  }
  const command = argv.slice(i + 1)
  if (command.length === 0) throw new Error('missing server command after --')
  return { ...options, command }
}

function check(condition, message) {
  if (!condition) throw new Error(message)
}

async function main() {
  const { expect, label, timeout, command } = parseArgs(process.argv.slice(2))
  const timer = setTimeout(() => {
    console.error(`ts-client: no answer within ${timeout} s`)
    process.exit(1)
  }, timeout * 1000)
  timer.unref()
  const transport = new StdioClientTransport({
    command: command[0],
    args: command.slice(1),
    // The SDK passes only a few safe variables to the server; keep npm's settings too, so a
    // check that points npm at an unreachable registry also holds for `npx` started here.
    env: {
      ...getDefaultEnvironment(),
      ...Object.fromEntries(Object.entries(process.env).filter(([key]) => key.startsWith('npm_config_'))),
    },
    stderr: 'inherit',
  })
  // The SDK hands the negotiated revision to transports that want it (HTTP sends it as a
  // header); stdio has no such hook, so record it here through the SDK's own path.
  let negotiated
  transport.setProtocolVersion = (version) => {
    negotiated = version
  }
  const client = new Client({ name: 'botmesh-ts-client-check', version: '0.0.0' })
  await client.connect(transport)
  try {
    check(negotiated === expect, `negotiated protocol version ${negotiated}, expected ${expect}`)
    const server = client.getServerVersion()
    check(server?.name === 'botmesh-mcp', `unexpected serverInfo.name ${server?.name}`)
    check(server.version === packageVersion, `serverInfo.version ${server.version}, npm/mcp/package.json has ${packageVersion}`)
    check(client.getServerCapabilities()?.tools, 'server does not advertise tools')

    const { tools } = await client.listTools()
    const names = tools.map((tool) => tool.name)
    for (const name of ['flow_validate', 'flow_analyze', 'flow_migrate', 'flow_diff', 'flow_digest', 'flow_schema', 'flow_example']) {
      check(names.includes(name), `tools/list lacks ${name} (got ${names.join(', ')})`)
    }
    const validate = tools.find((tool) => tool.name === 'flow_validate')
    check(validate.inputSchema?.type === 'object', 'flow_validate inputSchema is not an object schema')

    // callTool validates structuredContent against the advertised outputSchema itself.
    const result = await client.callTool({ name: 'flow_validate', arguments: { document: VALID_DOCUMENT } })
    check(result.isError !== true, `flow_validate answered isError: ${JSON.stringify(result.content)}`)
    const text = result.content?.find((item) => item.type === 'text')?.text
    check(typeof text === 'string', 'flow_validate result has no text item')
    const payload = JSON.parse(text)
    check(payload.valid === true, `flow_validate says the document is invalid: ${text}`)
    if (validate.outputSchema) {
      check(result.structuredContent?.valid === true, 'structuredContent missing although an outputSchema is advertised')
    }
    // flow_render: the SDK parses the image item and checks structuredContent against the schema.
    const picture = await client.callTool({ name: 'flow_render', arguments: { document: VALID_DOCUMENT } })
    check(picture.isError !== true, `flow_render answered isError: ${JSON.stringify(picture.content)}`)
    const image = picture.content?.find((item) => item.type === 'image')
    check(image?.mimeType === 'image/png', 'flow_render returned no PNG image item')
    check(Buffer.from(image.data, 'base64').subarray(1, 4).toString() === 'PNG', 'flow_render image is not a PNG')
    // flow_simulate: a conversation (a tap, a typed answer, a mocked handler); the SDK checks
    // structuredContent against the schema, the text is the transcript.
    const simulated = await client.callTool({ name: 'flow_simulate', arguments: SIMULATION })
    check(simulated.isError !== true, `flow_simulate answered isError: ${JSON.stringify(simulated.content)}`)
    const run = simulated.structuredContent
    if (run) {
      check(run.valid === true && run.outcome?.kind === 'ended', `flow_simulate outcome ${JSON.stringify(run.outcome)}`)
      check(run.variables?.size === 'large' && run.variables?.ticket === 'T-1', `flow_simulate variables ${JSON.stringify(run.variables)}`)
    }
    const transcript = simulated.content?.find((item) => item.type === 'text')?.text ?? ''
    check(transcript.includes('\noutcome: ended at ts_client_sim/bye\n'), `flow_simulate text: ${transcript}`)
    const wrong = await client.callTool({ name: 'flow_simulate', arguments: { ...SIMULATION, replies: [42] } })
    check(wrong.isError === true, 'flow_simulate accepted a reply that is a number')
    // A 150-step flow, page by page: the overview, then pages 1 and 2, each a PNG within the
    // default maxSize (1568 px) whose structuredContent names its steps and neighbours.
    const document = longFlow(150)
    const overview = await client.callTool({ name: 'flow_render', arguments: { document } })
    check(overview.isError !== true, `flow_render overview answered isError: ${JSON.stringify(overview.content)}`)
    const pages = overview.structuredContent?.pages
    check(Number.isInteger(pages) && pages >= 2, `a 150-step flow should need pages, got ${pages}`)
    const [ow, oh] = pngSize(overview.content.find((item) => item.type === 'image').data)
    check(Math.max(ow, oh) <= 1568, `overview ${ow}x${oh} is larger than 1568 px`)
    const sizes = []
    for (const page of [1, 2]) {
      const answer = await client.callTool({ name: 'flow_render', arguments: { document, page } })
      check(answer.isError !== true, `flow_render page ${page} answered isError: ${JSON.stringify(answer.content)}`)
      const [w, h] = pngSize(answer.content.find((item) => item.type === 'image').data)
      check(Math.max(w, h) <= 1568, `page ${page} ${w}x${h} is larger than 1568 px`)
      const s = answer.structuredContent
      check(s?.page === page && s.steps?.length > 0, `page ${page} does not say which steps it shows`)
      check(JSON.stringify(s.steps) === JSON.stringify(overview.structuredContent.pageSteps[page - 1].steps), `page ${page} steps differ from the overview's list`)
      check(page === 1 ? s.neighbours?.below === 2 : s.neighbours?.above === 1, `page ${page} neighbours ${JSON.stringify(s.neighbours)}`)
      sizes.push(`${w}x${h}`)
    }
    // flow_test: one passing case, one failing at its second turn; the SDK checks the schema.
    const tested = await client.callTool({
      name: 'flow_test',
      arguments: {
        document: SIMULATION.document,
        tests: {
          tests: [
            {
              name: 'large for Ana',
              handlers: SIMULATION.handlers,
              turns: [{ user: { tap: 'large' } }, { user: 'Ana' }, { bot: { text: 'Ticket T-1 for Ana, large.' } }],
              expect: { outcome: 'ended', variables: { size: 'large' } },
            },
            { name: 'small is not large', turns: [{ user: { tap: 'small' } }, { bot: { contains: 'large' } }] },
          ],
        },
      },
    })
    check(tested.isError !== true, `flow_test answered isError: ${JSON.stringify(tested.content)}`)
    const report = tested.structuredContent ?? JSON.parse(tested.content?.[0]?.text ?? '{}')
    check(report.valid === true && report.totals?.passed === 1 && report.totals?.failed === 1, `flow_test totals ${JSON.stringify(report.totals)}`)
    check(report.cases?.[1]?.failure?.path === '/tests/1/turns/1', `flow_test failure ${JSON.stringify(report.cases?.[1])}`)
    check(report.coverage?.flows?.[0]?.uncoveredEdges?.length === 0, `flow_test coverage ${JSON.stringify(report.coverage)}`)
    // Strict cases: one checks every message and passes; one stops checking before the last
    // message, which a strict case does not allow: it fails naming that message's step.
    const strict = await client.callTool({
      name: 'flow_test',
      arguments: {
        document: SIMULATION.document,
        tests: {
          strict: true,
          tests: [
            {
              name: 'every message',
              handlers: SIMULATION.handlers,
              turns: [
                { bot: { type: 'buttons', text: 'Size?' } },
                { user: { tap: 'large' } },
                { bot: { step: 'name', text: 'Name?' } },
                { user: 'Ana' },
                { bot: { step: 'bye', text: 'Ticket T-1 for Ana, large.' } },
              ],
              expect: { outcome: 'ended' },
            },
            {
              name: 'an extra message',
              handlers: SIMULATION.handlers,
              turns: [{ bot: { type: 'buttons' } }, { user: { tap: 'small' } }, { bot: { text: 'Name?' } }, { user: 'Bo' }],
            },
          ],
        },
      },
    })
    check(strict.isError !== true, `flow_test strict answered isError: ${JSON.stringify(strict.content)}`)
    const strictReport = strict.structuredContent ?? JSON.parse(strict.content?.[0]?.text ?? '{}')
    check(strictReport.cases?.[0]?.passed === true, `flow_test strict case ${JSON.stringify(strictReport.cases?.[0])}`)
    const extra = strictReport.cases?.[1]?.failure
    check(
      extra?.check === 'strict, after the last turn' && extra.at?.step === 'bye' && extra.at?.reason === 'unexpected-message',
      `flow_test strict failure ${JSON.stringify(extra)}`,
    )
    // A generated suite of a flow users wrote (issue 37: an ask with a pattern, a subflow behind
    // a variable the bot's code sets, a branch on a handler's result) is strict, passes and
    // takes every edge of the flow and its subflow, with nothing left uncovered.
    const cita = fixture('cita.json')
    const alta = fixture('alta-paciente.json')
    const generated = await client.callTool({ name: 'flow_test', arguments: { document: cita, subflows: [alta], generate: true } })
    check(generated.isError !== true, `flow_test generate answered isError: ${JSON.stringify(generated.content)}`)
    const suite = generated.structuredContent ?? JSON.parse(generated.content?.[0]?.text ?? '{}')
    check(suite.totals?.failed === 0 && suite.tests?.tests?.length > 0, `flow_test generate totals ${JSON.stringify(suite.totals)}`)
    check(suite.tests?.strict === true, `flow_test generate is not strict: ${JSON.stringify(suite.tests)}`)
    check(suite.uncovered?.length === 0, `flow_test generate left ${JSON.stringify(suite.uncovered)}`)
    check(
      suite.coverage?.flows?.length === 2 && suite.coverage.flows.every((f) => f.edgesCovered === f.edges),
      `flow_test generate coverage ${JSON.stringify(suite.coverage)}`,
    )
    check(
      suite.tests.tests.some((c) => c.variables?.paciente_nuevo === true),
      'flow_test generate gives paciente_nuevo no initial value',
    )
    // A conversation becomes a test: flow_simulate with asTest returns a strict case that
    // flow_test passes on the same flow, and fails on the last turn once the bot says otherwise.
    const recorded = await client.callTool({ name: 'flow_simulate', arguments: { ...SIMULATION, asTest: true } })
    check(recorded.isError !== true, `flow_simulate asTest answered isError: ${JSON.stringify(recorded.content)}`)
    const recordedRun = recorded.structuredContent ?? {}
    const asTest = recordedRun.test
    check(asTest?.strict === true && asTest.turns?.length === 5, `flow_simulate asTest test ${JSON.stringify(asTest)}`)
    const recordedText = recorded.content?.find((item) => item.type === 'text')?.text ?? ''
    check(recordedText.includes('\ntest (a strict case that replays this conversation):\n'), `flow_simulate asTest text: ${recordedText}`)
    const replayed = await client.callTool({ name: 'flow_test', arguments: { document: SIMULATION.document, tests: { tests: [asTest] } } })
    check(replayed.isError !== true, `flow_test of the recorded case answered isError: ${JSON.stringify(replayed.content)}`)
    const replay = replayed.structuredContent ?? JSON.parse(replayed.content?.[0]?.text ?? '{}')
    check(replay.valid === true && replay.totals?.passed === 1 && replay.totals?.failed === 0, `flow_test of the recorded case ${JSON.stringify(replay)}`)
    const changed = structuredClone(SIMULATION.document)
    changed.steps[3].text = 'Ticket {{ticket}}, {{name}}.'
    const broken = await client.callTool({ name: 'flow_test', arguments: { document: changed, tests: { tests: [asTest] } } })
    const brokenCase = (broken.structuredContent ?? JSON.parse(broken.content?.[0]?.text ?? '{}')).cases?.[0]
    check(brokenCase?.passed === false && brokenCase.failure?.path === '/tests/0/turns/4', `flow_test of the recorded case on a changed flow ${JSON.stringify(brokenCase)}`)
    // The schema an agent writes test files from.
    const testSchema = await client.callTool({ name: 'flow_schema', arguments: { form: 'flowtest' } })
    check(testSchema.structuredContent?.schema?.properties?.strict?.type === 'boolean', 'flow_schema flowtest has no strict')
    console.log(
      `${label} ${sdkVersion}: protocolVersion=${negotiated} server=${server.name} ${server.version} tools=${tools.length} flow_validate valid=${payload.valid} flow_render png=${image.data.length} base64 chars; 150 steps: overview ${ow}x${oh}, ${pages} pages, pages 1-2 ${sizes.join(' ')}; flow_simulate ${transcript.split('\n').length - 1} lines; flow_test ${report.totals.passed}/${report.totals.cases} passed, strict 1/2 (extra message at ${extra.at.step}), generated ${suite.tests.tests.length} strict cases at 100 % of ${suite.coverage.flows.reduce((n, f) => n + f.edges, 0)} edges, recorded case passes and fails at ${brokenCase.failure.path}`,
    )
  } finally {
    await client.close()
  }
}

main().then(
  () => process.exit(0),
  (error) => {
    console.error(`ts-client: ${error.message}`)
    process.exit(1)
  },
)
