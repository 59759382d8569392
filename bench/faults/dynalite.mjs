// A dynalite on a fixed port with the bikes table, so that the prod-profile service's readiness check
// (DynamoDbReadiness: DescribeTable on turnstile-bikes) answers UP during the booking fault run.
// Usage: node bench/faults/dynalite.mjs PORT   (prints "ready" once the table exists; ends on SIGTERM)
//        node bench/faults/dynalite.mjs PORT DIR   (rental fault run: data on disk in DIR (LevelDB), so that it
//        survives kill -9 and a restart on the same DIR; no table is created, the service creates its own with
//        turnstile.rental.create-missing-tables=true; prints "ready" once listening)
import { createRequire } from 'node:module'

const require = createRequire(new URL('../../package.json', import.meta.url))
const dynalite = require('dynalite')
const port = Number(process.argv[2] || 18091)
const dataDir = process.argv[3]
const server = dynalite({ createTableMs: 0, deleteTableMs: 0, updateTableMs: 0, ...(dataDir ? { path: dataDir } : {}) })

async function call(target, body) {
  const res = await fetch(`http://127.0.0.1:${port}/`, {
    method: 'POST',
    headers: {
      'Content-Type': 'application/x-amz-json-1.0',
      'X-Amz-Target': `DynamoDB_20120810.${target}`,
      // dynalite wants a well-formed SigV4 header but does not verify it
      Authorization: 'AWS4-HMAC-SHA256 Credential=local/20200101/eu-west-1/dynamodb/aws4_request, SignedHeaders=host, Signature=0',
      'X-Amz-Date': '20200101T000000Z',
    },
    body: JSON.stringify(body),
  })
  return { status: res.status, body: await res.json() }
}

server.listen(port, '127.0.0.1', async () => {
  if (dataDir) {
    process.stdout.write('ready\n')
    return
  }
  const created = await call('CreateTable', {
    TableName: process.env.TABLE || 'turnstile-bikes',
    AttributeDefinitions: [{ AttributeName: 'bikeId', AttributeType: 'S' }],
    KeySchema: [{ AttributeName: 'bikeId', KeyType: 'HASH' }],
    BillingMode: 'PAY_PER_REQUEST',
  })
  if (created.status !== 200 && !String(created.body.__type).includes('ResourceInUse')) {
    process.stderr.write(`CreateTable failed: ${JSON.stringify(created)}\n`)
    process.exit(1)
  }
  process.stdout.write('ready\n')
})
process.on('SIGTERM', () => process.exit(0))
