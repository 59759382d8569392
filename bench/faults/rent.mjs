// Rent/return client for bench/faults/rental.sh: CLIENTS concurrent clients, each owning one bike (BIKE_PREFIX + i)
// and one customer, loop rent -> return. Every operation has its own Idempotency-Key; a 503 (after Retry-After,
// capped), a 409 IDEMPOTENCY_IN_PROGRESS (same) and a network error (DynamoDB killed: the service answers 503; a lost
// answer: the request may or may not have been applied) are retried with the same key and body until a final answer
// or the operation's deadline. Once STOP_FILE exists (or after LOAD_S), each client finishes its cycle (the bike is
// returned) and stops. Built-in fetch only.
// A "false 409" is NOT_AVAILABLE on a rent, or NOT_RENTED on a return, answered to a retry of a request whose first
// answer was a 503, a 409 IDEMPOTENCY_IN_PROGRESS or lost: the very request was applied and its key must replay it.
// Env: TURNSTILE_TOKEN (a staff token: staff act for each client's customer and are not rate-limited),
//      BASE (http://127.0.0.1:18093), CLIENTS (64), RUN (tag for keys and customers), BIKE_PREFIX, STATION,
//      STOP_FILE, LOAD_S (60, hard limit of the load), OP_DEADLINE_S (40 per operation), OUT (OUT.json summary)
import { existsSync, writeFileSync } from 'node:fs'

const base = process.env.BASE || 'http://127.0.0.1:18093'
const auth = { Authorization: `Bearer ${process.env.TURNSTILE_TOKEN}` }
const clients = Number(process.env.CLIENTS || 64)
const run = process.env.RUN || String(Date.now())
const bikePrefix = process.env.BIKE_PREFIX || `${run}-b`
const station = process.env.STATION || `${run}-s`
const stopFile = process.env.STOP_FILE || ''
const out = process.env.OUT || `rent-${run}`
const start = Date.now()
const loadUntil = start + Number(process.env.LOAD_S || 60) * 1000
const opDeadlineMs = Number(process.env.OP_DEADLINE_S || 40) * 1000
const RETRY_AFTER_CAP_MS = 2000
const NETWORK_BACKOFF_MS = 200

const counts = {
  requests: 0, cycles: 0, rent200: 0, return200: 0, replayed: 0, s200AfterRetry: 0, s409: {}, falseConflicts: 0,
  falseConflictSamples: [], inProgress: 0, inProgressWithRetryAfter: 0, s503: 0, s503WithRetryAfter: 0,
  s503Reasons: {}, s500: 0, samples500: [], otherStatus: {}, otherSamples: [], network: 0, networkCodes: {},
  unresolved: 0, first503Ms: null, last503Ms: null, firstNetworkMs: null, lastNetworkMs: null,
  ridesAnswerMismatch: 0, ridesAnswerSamples: [], okByMs: [],
}
const perBike = {} // bikeId -> { confirmedRents, lastRidesAnswered, unresolvedOps }
const sleep = ms => new Promise(r => setTimeout(r, ms))
const bump = (obj, key) => { obj[key] = (obj[key] || 0) + 1 }
const since = () => Date.now() - start
const stopping = () => Date.now() >= loadUntil || (stopFile !== '' && existsSync(stopFile))

// One operation under one key until a final answer: { status, json } (status 0: gave up at the deadline)
async function operate(kind, bikeId, body, key) {
  const url = `${base}/bikes/${bikeId}/${kind}`
  const text = JSON.stringify(body)
  const deadline = Date.now() + opDeadlineMs
  let retried = false // a previous attempt got no final answer (503, in progress, network error)
  for (let attempt = 0; Date.now() < deadline; attempt++) {
    counts.requests++
    let res, raw
    try {
      res = await fetch(url, {
        method: 'POST', body: text, signal: AbortSignal.timeout(10000),
        headers: { ...auth, 'Content-Type': 'application/json', 'Idempotency-Key': key },
      })
      raw = await res.text()
    } catch (e) {
      counts.network++
      bump(counts.networkCodes, e.cause?.code || e.name || 'unknown')
      counts.firstNetworkMs ??= since(); counts.lastNetworkMs = since()
      retried = true
      await sleep(NETWORK_BACKOFF_MS)
      continue
    }
    let json = {}
    try { json = JSON.parse(raw) } catch { /* not JSON */ }
    const retryAfter = res.headers.get('retry-after')
    const retryAfterOk = retryAfter !== null && /^\d+$/.test(retryAfter)
    const wait = () => sleep(Math.min(RETRY_AFTER_CAP_MS, retryAfterOk ? Number(retryAfter) * 1000 : 500))
    if (res.status === 200) {
      counts.okByMs.push(since())
      if (res.headers.get('idempotent-replayed') === 'true') counts.replayed++
      if (retried) counts.s200AfterRetry++
      return { status: 200, json }
    }
    if (res.status === 503) {
      counts.s503++
      bump(counts.s503Reasons, json.reason || 'unknown')
      counts.first503Ms ??= since(); counts.last503Ms = since()
      if (retryAfterOk) counts.s503WithRetryAfter++
      retried = true
      await wait()
      continue
    }
    if (res.status === 409 && json.reason === 'IDEMPOTENCY_IN_PROGRESS') {
      counts.inProgress++
      if (retryAfterOk) counts.inProgressWithRetryAfter++
      retried = true
      await wait()
      continue
    }
    if (res.status === 409) {
      bump(counts.s409, `${kind}:${json.reason || 'unknown'}`)
      const falseOne = retried && ((kind === 'rent' && json.reason === 'NOT_AVAILABLE') ||
        (kind === 'return' && json.reason === 'NOT_RENTED'))
      if (falseOne) {
        counts.falseConflicts++
        if (counts.falseConflictSamples.length < 5) {
          counts.falseConflictSamples.push(`${bikeId} ${kind} key ${key} attempt ${attempt + 1}: ${raw.slice(0, 300)}`)
        }
      }
      return { status: 409, json }
    }
    if (res.status === 500) {
      counts.s500++
      if (counts.samples500.length < 5) counts.samples500.push(`${bikeId} ${kind} key ${key} attempt ${attempt + 1}: ${raw.slice(0, 300)}`)
    } else {
      bump(counts.otherStatus, res.status)
      if (counts.otherSamples.length < 5) counts.otherSamples.push(`${bikeId} ${kind} ${res.status}: ${raw.slice(0, 200)}`)
    }
    return { status: res.status, json } // a 500 or an unexpected status is not retried: the check fails on it anyway
  }
  return { status: 0, json: {} }
}

// After an operation without a 200: look at the bike, and return it when it is still ours (new key), so that every
// client ends with its bike AVAILABLE. Rides the service counted without a confirmed rent then show in the check.
async function resync(bikeId, customerId, n) {
  for (let i = 0; i < 20; i++) {
    try {
      const res = await fetch(`${base}/bikes/${bikeId}`, { headers: auth, signal: AbortSignal.timeout(10000) })
      if (res.status === 200) {
        const bike = await res.json()
        if (bike.status !== 'RENTED') return
        const back = await operate('return', bikeId, { customerId, station }, `${run}-${customerId}-resync${n}-${i}`)
        if (back.status === 200) return
      }
    } catch { /* retried */ }
    await sleep(500)
  }
}

async function client(i) {
  const bikeId = `${bikePrefix}${i}`
  const customerId = `c${i}`
  const mine = perBike[bikeId] = { confirmedRents: 0, lastRidesAnswered: null, unresolvedOps: 0 }
  for (let n = 0; !stopping(); n++) {
    const rented = await operate('rent', bikeId, { customerId }, `${run}-${customerId}-rent${n}`)
    if (rented.status !== 200) {
      counts.unresolved++; mine.unresolvedOps++
      await resync(bikeId, customerId, n)
      continue
    }
    mine.confirmedRents++
    counts.rent200++
    mine.lastRidesAnswered = rented.json.ridesSinceService
    if (rented.json.ridesSinceService !== mine.confirmedRents) { // the bike was created with 0 rides
      counts.ridesAnswerMismatch++
      if (counts.ridesAnswerSamples.length < 5) {
        counts.ridesAnswerSamples.push(`${bikeId} rent ${n}: rides ${rented.json.ridesSinceService}, confirmed rents ${mine.confirmedRents}`)
      }
    }
    const returned = await operate('return', bikeId, { customerId, station }, `${run}-${customerId}-return${n}`)
    if (returned.status !== 200) {
      counts.unresolved++; mine.unresolvedOps++
      await resync(bikeId, customerId, n)
      continue
    }
    counts.return200++
    counts.cycles++
  }
}

await Promise.all(Array.from({ length: clients }, (_, i) => client(i)))
counts.startEpochMs = start
counts.elapsedMs = since()
counts.perBike = perBike
writeFileSync(`${out}.json`, JSON.stringify(counts, null, 1))
console.log(`rent: ${counts.cycles} cycles, ${counts.requests} requests, rent 200=${counts.rent200} return 200=${counts.return200} ` +
  `replayed=${counts.replayed} 409=${JSON.stringify(counts.s409)} false409=${counts.falseConflicts} in-progress=${counts.inProgress} ` +
  `503=${counts.s503} 500=${counts.s500} network=${counts.network} unresolved=${counts.unresolved} in ${counts.elapsedMs} ms`)
