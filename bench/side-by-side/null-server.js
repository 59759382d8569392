// The sell-out's load generator against a server that does no work: it keeps one counter per fare and answers at
// once (201 while seats are left, then 409 SOLD_OUT), so the time to sold out it gives is the floor that
// ../shared/bench/sellout.sh (64 Python threads) itself sets on this machine. Usage: node null-server.js [PORT]
const http = require('http');

const fares = new Map();
const json = (res, status, body, type = 'application/json') => {
  res.writeHead(status, { 'Content-Type': type });
  res.end(JSON.stringify(body));
};

http.createServer((req, res) => {
  let body = '';
  req.on('data', (chunk) => { body += chunk; });
  req.on('end', () => {
    const path = req.url.match(/^\/flights\/([^/]+)\/fares\/([^/?]+)(\/bookings)?/);
    if (!path) return json(res, 404, { status: 404 }, 'application/problem+json');
    const key = `${path[1]}/${path[2]}`;
    if (req.method === 'PUT') {
      const seats = JSON.parse(body).seats;
      fares.set(key, { seats, left: seats });
      return json(res, 201, { seatsTotal: seats, seatsAvailable: seats });
    }
    const fare = fares.get(key);
    if (!fare) return json(res, 404, { status: 404, reason: 'FARE_NOT_FOUND' }, 'application/problem+json');
    if (req.method === 'GET') return json(res, 200, { seatsAvailable: fare.left, booked: fare.seats - fare.left });
    if (fare.left === 0) return json(res, 409, { status: 409, reason: 'SOLD_OUT' }, 'application/problem+json');
    fare.left -= 1;
    return json(res, 201, { bookingId: `null-${fare.left}`, status: 'CONFIRMED' });
  });
}).listen(Number(process.argv[2] || 8083), '127.0.0.1');
