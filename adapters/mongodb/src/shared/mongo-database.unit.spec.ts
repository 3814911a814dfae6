import { MongoDatabase } from './mongo-database';

// Made without connecting: the driver reads its options when the client is made.
describe('MongoDatabase', () => {
  it('waits 10 s for a usable server unless told: by its options first, else by the URL\'s serverSelectionTimeoutMS, in any case', async () => {
    const selection = (url: string, serverSelectionTimeoutMS?: number) =>
      new MongoDatabase({ url, ...(serverSelectionTimeoutMS === undefined ? {} : { serverSelectionTimeoutMS }) }).client.options.serverSelectionTimeoutMS;
    expect(selection('mongodb://127.0.0.1:1/tl')).toBe(10_000);
    expect(selection('mongodb://127.0.0.1:1/tl?replicaSet=rs0&serverSelectionTimeoutMS=300')).toBe(300);
    expect(selection('mongodb://127.0.0.1:1/tl?serverselectiontimeoutms=400')).toBe(400);
    expect(selection('mongodb://127.0.0.1:1/tl?serverSelectionTimeoutMS=300', 5_000)).toBe(5_000);
  });
});
