/** The reference ceiling: a bare Express 5 JSON endpoint, run as its own process by the benchmark. */
import express from 'express';

const app = express();
app.disable('x-powered-by');
app.get('/hello', (_req, res) => {
  res.json({ hello: 'world' });
});
const port = Number(process.argv[2] ?? 0);
const server = app.listen(port, '127.0.0.1', () => {
  const address = server.address();
  console.log(`listening ${typeof address === 'object' && address ? address.port : port}`);
});
