// Cold-start and footprint driver for bench/startup/run.sh (Node 20+, no dependencies).
//
//   node startup.mjs tables <dynamodb-port>                 create the DynamoDB tables (idempotent)
//   node startup.mjs measure <label> <runs> <port> -- <command...>
//   node startup.mjs exits <label> <runs> -- <command...>      (a baseline: spawn to exit, e.g. java -version)
//
// measure starts <command> <runs> times and, per run, records from the moment of spawn:
//   http   first answer of any status (the HTTP server is up)
//   ready  first 200 of GET /q/health/ready (both stores answered)
// (http and ready ask the management port, QUARKUS_MANAGEMENT_PORT, where /q/health answers.)
// API requests carry BENCH_TOKEN (a staff token: staff act for the many customers and passengers here and are not
// rate limited; run.sh mints it with local/token.js).
//   rent   first 200 of POST /bikes/{id}/rent after POST /bikes        ("n/a" while the route is absent)
//   book   first 201 of POST /flights/{f}/fares/Y/bookings after PUT  ("n/a" while the route is absent)
//   rss    VmRSS right after those first requests, and after LOAD_SECONDS of load at LOAD_CLIENTS clients
// then prints each run and, as a markdown table row, the median of each figure with the best run in brackets (the
// machine is shared: the best run is the figure least disturbed by other work).
import { spawn } from 'node:child_process';
import { readFileSync, openSync } from 'node:fs';
import http from 'node:http';
import { randomUUID } from 'node:crypto';

const LOAD_SECONDS = Number(process.env.LOAD_SECONDS ?? 5);
const LOAD_CLIENTS = Number(process.env.LOAD_CLIENTS ?? 16);
const READY_DEADLINE_MS = 60_000;
const MANAGEMENT_PORT = Number(process.env.QUARKUS_MANAGEMENT_PORT ?? 9000);
const AUTHORIZATION = process.env.BENCH_TOKEN ? { authorization: `Bearer ${process.env.BENCH_TOKEN}` } : {};

const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });

function request(port, method, path, body, headers = {}) {
  return new Promise((resolve) => {
    const data = body === undefined ? undefined : JSON.stringify(body);
    const req = http.request({ host: '127.0.0.1', port, method, path, agent, timeout: 5000,
      headers: { ...AUTHORIZATION, ...(data ? { 'content-type': 'application/json', 'content-length': Buffer.byteLength(data) } : {}), ...headers } },
    (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c) => { text += c; });
      res.on('end', () => resolve({ status: res.statusCode, text }));
    });
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', (e) => resolve({ status: 0, text: String(e.message) }));
    if (data) req.write(data);
    req.end();
  });
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const msSince = (t0) => Number(process.hrtime.bigint() - t0) / 1e6;

// CPU time (user + system, all threads) the process used so far: what a start costs in work, which a busy machine
// inflates far less than the wall-clock time (waiting for a core is not counted).
function cpuMs(pid) {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10; // utime, stime in clock ticks of 10 ms
  } catch { return NaN; }
}

function rssMiB(pid) {
  try {
    const line = readFileSync(`/proc/${pid}/status`, 'utf8').split('\n').find((l) => l.startsWith('VmRSS:'));
    return Math.round(Number(line.split(/\s+/)[1]) / 1024);
  } catch { return NaN; }
}

// The bike and fare were just created, so a 404/405 here means the route is not deployed (its feature branch is not
// merged yet): "n/a", not "failed".
const absent = (r) => r.status === 404 || r.status === 405;

async function firstRent(port, t0) {
  const bikeId = `startup-${randomUUID()}`;
  const created = await request(port, 'POST', '/bikes', { bikeId, station: 'harbour' });
  if (absent(created)) return { ms: 'n/a' };
  if (created.status !== 201) return { ms: `failed ${created.status}` };
  const rented = await request(port, 'POST', `/bikes/${bikeId}/rent`, { customerId: `c-${randomUUID()}` });
  if (absent(rented)) return { ms: 'n/a' };
  return rented.status === 200 ? { ms: msSince(t0), bikeId } : { ms: `failed ${rented.status}` };
}

async function firstBooking(port, t0) {
  const flight = `ST${randomUUID().slice(0, 8)}`;
  const fare = await request(port, 'PUT', `/flights/${flight}/fares/Y`, { seats: 10 });
  if (absent(fare)) return { ms: 'n/a' };
  if (fare.status !== 200 && fare.status !== 201) return { ms: `failed ${fare.status}` };
  const booked = await request(port, 'POST', `/flights/${flight}/fares/Y/bookings`, { passengerId: 'p1' });
  if (absent(booked)) return { ms: 'n/a' };
  return booked.status === 201 ? { ms: msSince(t0), flight } : { ms: `failed ${booked.status}` };
}

// Each client loops over what is deployed: rent+return of its own bike, a booking on a fare that never sells out,
// and a readiness probe (both stores) so there is load even before the feature branches are merged. Every booking is
// a new passenger: a passenger holds one seat per flight, so a repeated one would be refused and counted as failed.
async function load(port, rentalUp, bookingUp) {
  const until = Date.now() + LOAD_SECONDS * 1000;
  let ok = 0; let failed = 0;
  const flight = `LD${randomUUID().slice(0, 8)}`;
  if (bookingUp) {
    // the largest fare the API accepts; a refused one would turn every load booking into a 404 counted as failed
    const fare = await request(port, 'PUT', `/flights/${flight}/fares/Y`, { seats: 1_000_000 });
    if (fare.status !== 200 && fare.status !== 201) throw new Error(`load fare refused: ${fare.status}`);
  }
  const client = async (n) => {
    const bikeId = `load-${n}-${randomUUID()}`;
    const customerId = `c-${n}-${randomUUID()}`;
    if (rentalUp) await request(port, 'POST', '/bikes', { bikeId, station: 'harbour' });
    let booking = 0;
    while (Date.now() < until) {
      const steps = [() => request(MANAGEMENT_PORT, 'GET', '/q/health/ready')];
      if (rentalUp) {
        steps.push(() => request(port, 'POST', `/bikes/${bikeId}/rent`, { customerId }));
        steps.push(() => request(port, 'POST', `/bikes/${bikeId}/return`, { customerId, station: 'harbour' }));
      }
      if (bookingUp) steps.push(() => request(port, 'POST', `/flights/${flight}/fares/Y/bookings`, { passengerId: `p-${n}-${booking++}` }));
      for (const step of steps) {
        const r = await step();
        if (r.status >= 200 && r.status < 300) ok++; else failed++;
      }
    }
  };
  await Promise.all(Array.from({ length: LOAD_CLIENTS }, (_, n) => client(n)));
  return { ok, failed, rps: Math.round(ok / LOAD_SECONDS) };
}

async function once(label, port, command, log) {
  const out = openSync(log, 'a');
  const t0 = process.hrtime.bigint();
  const child = spawn(command[0], command.slice(1), { stdio: ['ignore', out, out] });
  const exited = new Promise((r) => child.on('exit', r));
  let ready = null;
  let http = null;
  let cpu = null;
  while (msSince(t0) < READY_DEADLINE_MS && child.exitCode === null) {
    const r = await request(MANAGEMENT_PORT, 'GET', '/q/health/ready');
    if (r.status !== 0 && http === null) http = msSince(t0);
    if (r.status === 200) { ready = msSince(t0); cpu = cpuMs(child.pid); break; }
    await sleep(5);
  }
  if (ready === null) {
    child.kill('SIGKILL');
    await exited;
    throw new Error(`${label}: no 200 from /q/health/ready within ${READY_DEADLINE_MS} ms (see ${log})`);
  }
  const [rent, book] = await Promise.all([firstRent(port, t0), firstBooking(port, t0)]);
  const rssStart = rssMiB(child.pid);
  const traffic = await load(port, typeof rent.ms === 'number', typeof book.ms === 'number');
  const rssLoad = rssMiB(child.pid);
  child.kill('SIGTERM');
  const stopped = await Promise.race([exited.then(() => true), sleep(15_000).then(() => false)]);
  if (!stopped) { child.kill('SIGKILL'); await exited; }
  const quarkus = (readFileSync(log, 'utf8').match(/started in ([0-9.]+)s/g) ?? []).pop();
  return { http, ready, cpu, rent: rent.ms, book: book.ms, rssStart, rssLoad, rps: traffic.rps, failed: traffic.failed, quarkus };
}

const fmt = (v) => (typeof v === 'number' ? `${Math.round(v)}` : v);
function median(values) {
  const numbers = values.filter((v) => typeof v === 'number').sort((a, b) => a - b);
  if (numbers.length === 0) return values[0];
  return numbers[Math.floor((numbers.length - 1) / 2)];
}

async function measure(label, runs, port, command) {
  const log = `/tmp/turnstile-startup-${label.replace(/[^A-Za-z0-9]+/g, '-')}.log`;
  const results = [];
  for (let i = 1; i <= runs; i++) {
    const r = await once(label, port, command, log);
    results.push(r);
    console.log(`  ${label} run ${i}: first HTTP answer ${fmt(r.http)} ms, ready ${fmt(r.ready)} ms (CPU ${fmt(r.cpu)} ms), rent ${fmt(r.rent)} ms, booking ${fmt(r.book)} ms, `
      + `RSS ${r.rssStart} MiB after start, ${r.rssLoad} MiB after ${LOAD_SECONDS}s load (${r.rps} req/s ok, ${r.failed} failed); Quarkus: ${r.quarkus}`);
    await sleep(500);
  }
  const m = (k) => {
    const values = results.map((r) => r[k]);
    const numbers = values.filter((v) => typeof v === 'number');
    return numbers.length > 1 ? `${fmt(median(values))} (${fmt(Math.min(...numbers))})` : fmt(median(values));
  };
  console.log(`| ${label} | ${m('http')} | ${m('ready')} | ${m('cpu')} | ${m('rent')} | ${m('book')} | ${m('rssStart')} | ${m('rssLoad')} | ${runs} |`);
}

// The floor under every JVM start: the process that only starts a JVM and exits. Same table row, the exit time in the
// "ready" column.
async function exits(label, runs, command) {
  const times = [];
  for (let i = 1; i <= runs; i++) {
    const t0 = process.hrtime.bigint();
    const child = spawn(command[0], command.slice(1), { stdio: 'ignore' });
    const code = await new Promise((r) => child.on('exit', r));
    if (code !== 0) throw new Error(`${label}: exit code ${code}`);
    times.push(msSince(t0));
    console.log(`  ${label} run ${i}: exited after ${fmt(times[i - 1])} ms`);
    await sleep(200);
  }
  const best = times.length > 1 ? ` (${fmt(Math.min(...times))})` : '';
  console.log(`| ${label} | | ${fmt(median(times))}${best} | | | | | | ${runs} |`);
}

async function tables(port) {
  const defs = [['turnstile-bikes', 'bikeId'], ['turnstile-customers', 'customerId'],
    ['turnstile-rentals', 'rentalId'], ['turnstile-leases', 'leaseId']];
  const date = new Date().toISOString().replace(/[-:]|\.\d+/g, '');
  for (const [table, key] of defs) {
    const r = await request(port, 'POST', '/', {
      TableName: table, BillingMode: 'PAY_PER_REQUEST',
      AttributeDefinitions: [{ AttributeName: key, AttributeType: 'S' }],
      KeySchema: [{ AttributeName: key, KeyType: 'HASH' }],
    }, {
      'content-type': 'application/x-amz-json-1.0',
      'x-amz-target': 'DynamoDB_20120810.CreateTable',
      'x-amz-date': date,
      // dynalite checks the shape of a SigV4 header, not the signature.
      authorization: `AWS4-HMAC-SHA256 Credential=local/${date.slice(0, 8)}/eu-west-1/dynamodb/aws4_request, SignedHeaders=host, Signature=0`,
    });
    if (r.status !== 200 && !r.text.includes('ResourceInUseException')) throw new Error(`CreateTable ${table}: ${r.status} ${r.text}`);
  }
}

const [mode, ...args] = process.argv.slice(2);
try {
  if (mode === 'tables') {
    await tables(Number(args[0]));
  } else if (mode === 'exits') {
    const sep = args.indexOf('--');
    await exits(args[0], Number(args[1]), args.slice(sep + 1));
  } else if (mode === 'measure') {
    const sep = args.indexOf('--');
    await measure(args[0], Number(args[1]), Number(args[2]), args.slice(sep + 1));
  } else {
    throw new Error('usage: startup.mjs tables <port> | measure <label> <runs> <port> -- <command...> | exits <label> <runs> -- <command...>');
  }
} catch (e) {
  console.error(String(e.message ?? e));
  process.exitCode = 1;
} finally {
  agent.destroy();
}
