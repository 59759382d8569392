// Flash-sale client for bench/faults/booking.sh: CLIENTS concurrent clients book new passengers on every fare until
// each fare answers 409 SOLD_OUT. Every passenger has its own Idempotency-Key; a 503 (after Retry-After, capped) and a
// network error (service killed, connection refused or reset) are retried with the same key and body until a final
// answer (201, 409) or the deadline. Built-in fetch only. Books as staff (STAFF_TOKEN) for the passenger it names.
// Env: STAFF_TOKEN (required), BASE (http://127.0.0.1:18090), FARES (JSON [{flight, fareClass, strategy}]), CLIENTS (64), DEADLINE_S (60),
//      LB_READY_URL (a readiness URL: route new requests only while it answers 200),
//      RUN (tag for passenger ids and keys), OUT (prefix: OUT.json summary, OUT.csv bookingId,passengerId,flight,
//      epoch ms the 201 arrived)
import { writeFileSync } from 'node:fs'

const base = process.env.BASE || 'http://127.0.0.1:18090'
const token = process.env.STAFF_TOKEN
if (!token) throw new Error('STAFF_TOKEN is not set: booking.sh mints it with local/token.js')
const fares = JSON.parse(process.env.FARES).map(f => ({ ...f, soldOut: false }))
const clients = Number(process.env.CLIENTS || 64)
const run = process.env.RUN || String(Date.now())
const out = process.env.OUT || `sale-${run}`
const start = Date.now()
const deadline = start + Number(process.env.DEADLINE_S || 60) * 1000
const RETRY_AFTER_CAP_MS = 2000
// LB_READY_URL (optional): behave as behind a load balancer that routes no new request to an instance whose
// readiness is not 200, as Kubernetes takes a pod that is not ready out of its Service; requests already sent finish
let routable = true
let finished = false
async function followReadiness(url) {
  while (!finished) {
    try {
      routable = (await fetch(url, { signal: AbortSignal.timeout(500) })).status === 200
    } catch {
      routable = false
    }
    await sleep(100)
  }
}
const NETWORK_BACKOFF_MS = 200

const counts = {
  passengers: 0, requests: 0, s201: 0, s201AfterRetry: 0, s409: {}, s503: 0, s503WithRetryAfter: 0, s503Reasons: {},
  s500: 0, otherStatus: {}, network: 0, networkCodes: {}, unresolved: 0, first503Ms: null, last503Ms: null,
  firstNetworkMs: null, lastNetworkMs: null, samples500: [],
}
const booked = []
const sleep = ms => new Promise(r => setTimeout(r, ms))
const bump = (obj, key) => { obj[key] = (obj[key] || 0) + 1 }
const since = () => Date.now() - start

async function bookUntilFinal(fare, passengerId, key) {
  const url = `${base}/flights/${fare.flight}/fares/${fare.fareClass}/bookings?strategy=${fare.strategy}`
  const body = JSON.stringify({ passengerId })
  for (let attempt = 0; Date.now() < deadline; attempt++) {
    while (!routable && Date.now() < deadline) await sleep(50)
    counts.requests++
    let res, text
    try {
      res = await fetch(url, {
        method: 'POST', body, signal: AbortSignal.timeout(10000),
        headers: { 'Content-Type': 'application/json', 'Idempotency-Key': key, Authorization: `Bearer ${token}` },
      })
      text = await res.text()
    } catch (e) {
      counts.network++
      bump(counts.networkCodes, e.cause?.code || e.name || 'unknown')
      counts.firstNetworkMs ??= since(); counts.lastNetworkMs = since()
      await sleep(NETWORK_BACKOFF_MS)
      continue
    }
    let json = {}
    try { json = JSON.parse(text) } catch { /* not JSON */ }
    if (res.status === 201) {
      counts.s201++
      if (attempt > 0) counts.s201AfterRetry++
      booked.push([json.bookingId, passengerId, fare.flight, Date.now()])
      return
    }
    if (res.status === 409) {
      bump(counts.s409, json.reason || 'unknown')
      if (json.reason === 'SOLD_OUT') fare.soldOut = true
      return
    }
    if (res.status === 503) {
      counts.s503++
      bump(counts.s503Reasons, json.reason || 'unknown')
      counts.first503Ms ??= since(); counts.last503Ms = since()
      const retryAfter = res.headers.get('retry-after')
      if (retryAfter !== null && /^\d+$/.test(retryAfter)) counts.s503WithRetryAfter++
      await sleep(Math.min(RETRY_AFTER_CAP_MS, retryAfter !== null ? Number(retryAfter) * 1000 : 500))
      continue
    }
    if (res.status === 500) {
      counts.s500++
      if (counts.samples500.length < 3) counts.samples500.push(`${passengerId} attempt ${attempt + 1}: ${text.slice(0, 200)}`)
    } else {
      bump(counts.otherStatus, res.status)
    }
    counts.unresolved++ // a 500 or an unexpected status is not retried: the check fails on it anyway
    return
  }
  counts.unresolved++
}

let next = 0
async function client() {
  while (Date.now() < deadline) {
    const open = fares.filter(f => !f.soldOut)
    if (open.length === 0) return
    const n = next++
    counts.passengers++
    await bookUntilFinal(open[n % open.length], `${run}-p${n}`, `${run}-k${n}`)
  }
}

const readiness = process.env.LB_READY_URL ? followReadiness(process.env.LB_READY_URL) : Promise.resolve()
await Promise.all(Array.from({ length: clients }, client))
// wall clock of the last answer, before the readiness poller's tail: the script compares it with when the fault fired
counts.lastAnswerEpochMs = Date.now()
finished = true
await readiness
counts.elapsedMs = since()
counts.soldOut = fares.filter(f => f.soldOut).length
counts.fares = fares.length
writeFileSync(`${out}.json`, JSON.stringify(counts, null, 1))
writeFileSync(`${out}.csv`, booked.map(r => r.join(',')).join('\n') + (booked.length ? '\n' : ''))
console.log(`sale: ${counts.passengers} passengers, ${counts.requests} requests, 201=${counts.s201} ` +
  `409=${JSON.stringify(counts.s409)} 503=${counts.s503} 500=${counts.s500} network=${counts.network} ` +
  `unresolved=${counts.unresolved} in ${counts.elapsedMs} ms`)
