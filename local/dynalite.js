// Turnstile's local DynamoDB for quarkus:dev and the tests, started by LocalDynamoDb.java.
// listen(0) lets the kernel pick a free port (dynalite's own CLI turns --port 0 into 4567).
// The parent JVM holds our stdin: when it exits, even by SIGKILL, stdin ends and so do we,
// so no orphan node process outlives a dev session or a test run.
const dynalite = require('dynalite')

const server = dynalite({ createTableMs: 0, deleteTableMs: 0, updateTableMs: 0 })
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`dynalite listening on port ${server.address().port}\n`)
})

process.stdin.on('end', () => process.exit(0))
process.stdin.on('error', () => process.exit(0))
process.stdin.resume()
process.on('SIGTERM', () => process.exit(0))
// Ctrl-C reaches the whole terminal group: stay up while the JVM shuts down, then go with it.
process.on('SIGINT', () => {})
