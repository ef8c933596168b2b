import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from './config.ts';

describe('loadConfig', () => {
  it('has working defaults', () => {
    const config = loadConfig({});
    expect(config).toMatchObject({ host: '127.0.0.1', port: 8000, baseUrl: 'http://localhost:8000', organization: 'default' });
    expect(config.dataDir.endsWith('.errata')).toBe(true);
    expect(config.limits).toEqual({
      maxEventBytes: 1048576,
      maxLogItemBytes: 4194304,
      maxRequestBytes: 20971520,
      maxEnvelopeBytes: 104857600,
      maxEnvelopeItems: 1000,
      maxCompressionRatio: 2000,
      ingestMemoryBytes: 268435456,
    });
    expect(config.http).toEqual({
      headersTimeoutMs: 10_000,
      requestTimeoutMs: 300_000,
      bodyTimeoutMs: 20_000,
      keepAliveTimeoutMs: 65_000,
      maxHeaderBytes: 16_384,
      maxConnections: 4096,
      maxConnectionsPerClient: 1024,
    });
  });

  it('reads the upload limits, refusing a chunk quota under 1 MiB', () => {
    expect(loadConfig({}).uploads).toEqual({ maxAssemblies: 2, chunkBytesPerProject: 1073741824 });
    expect(loadConfig({ ERRATA_UPLOAD_MAX_ASSEMBLIES: '4', ERRATA_UPLOAD_CHUNK_BYTES_PER_PROJECT: '1048576' }).uploads).toEqual({
      maxAssemblies: 4,
      chunkBytesPerProject: 1048576,
    });
    expect(() => loadConfig({ ERRATA_UPLOAD_CHUNK_BYTES_PER_PROJECT: '1000' })).toThrow(
      /ERRATA_UPLOAD_CHUNK_BYTES_PER_PROJECT="1000"/,
    );
    expect(() => loadConfig({ ERRATA_UPLOAD_MAX_ASSEMBLIES: '0' })).toThrow(/ERRATA_UPLOAD_MAX_ASSEMBLIES="0"/);
  });

  it("reads the heap growing percent: unset or empty for automatic, 0 for V8's own, else 10 to 1000", () => {
    expect(loadConfig({}).heapGrowingPercent).toBeUndefined();
    expect(loadConfig({ ERRATA_HEAP_GROWING_PERCENT: '' }).heapGrowingPercent).toBeUndefined();
    expect(loadConfig({ ERRATA_HEAP_GROWING_PERCENT: '0' }).heapGrowingPercent).toBe(0);
    expect(loadConfig({ ERRATA_HEAP_GROWING_PERCENT: '300' }).heapGrowingPercent).toBe(300);
    expect(() => loadConfig({ ERRATA_HEAP_GROWING_PERCENT: '5' })).toThrow(
      /ERRATA_HEAP_GROWING_PERCENT="5": 0 for V8's own, or 10 to 1000/,
    );
    expect(() => loadConfig({ ERRATA_HEAP_GROWING_PERCENT: '1001' })).toThrow(/ERRATA_HEAP_GROWING_PERCENT="1001"/);
    expect(() => loadConfig({ ERRATA_HEAP_GROWING_PERCENT: 'fast' })).toThrow(/ERRATA_HEAP_GROWING_PERCENT="fast"/);
  });

  it("reads the dispatcher's nice value: 10 unless set, 0 to 19", () => {
    expect(loadConfig({}).dispatcherNice).toBe(10);
    expect(loadConfig({ ERRATA_DISPATCHER_NICE: '0' }).dispatcherNice).toBe(0);
    expect(loadConfig({ ERRATA_DISPATCHER_NICE: '19' }).dispatcherNice).toBe(19);
    expect(() => loadConfig({ ERRATA_DISPATCHER_NICE: '20' })).toThrow(/ERRATA_DISPATCHER_NICE="20"/);
    expect(() => loadConfig({ ERRATA_DISPATCHER_NICE: '-5' })).toThrow(/ERRATA_DISPATCHER_NICE="-5"/);
  });

  it('derives the base URL from the port and trims a trailing slash', () => {
    expect(loadConfig({ ERRATA_PORT: '9000' }).baseUrl).toBe('http://localhost:9000');
    expect(loadConfig({ ERRATA_BASE_URL: 'https://errors.example.com/' }).baseUrl).toBe('https://errors.example.com');
  });

  it('names the variable and the problem when a value is bad', () => {
    expect(() => loadConfig({ ERRATA_PORT: 'eighty' })).toThrow(ConfigError);
    expect(() => loadConfig({ ERRATA_PORT: 'eighty' })).toThrow(/ERRATA_PORT="eighty"/);
    expect(() => loadConfig({ ERRATA_BASE_URL: 'ftp://x' })).toThrow(/ERRATA_BASE_URL/);
    expect(() => loadConfig({ ERRATA_ORGANIZATION: 'Big Org' })).toThrow(/ERRATA_ORGANIZATION="Big Org": use lowercase/);
  });

  it('reads the distributed settings, each section only when its server is configured', () => {
    expect(loadConfig({})).toMatchObject({ postgres: undefined, clickhouse: undefined, kafka: undefined, s3: undefined });
    const config = loadConfig({
      ERRATA_POSTGRES_URL: 'postgres://errata:pw@db:5432/errata',
      ERRATA_CLICKHOUSE_URL: 'http://ch:8123',
      ERRATA_KAFKA_BROKERS: 'k1:9092,k2:9092',
      ERRATA_KAFKA_TOPIC_PREFIX: 'prod.',
      ERRATA_S3_BUCKET: 'errata-maps',
      ERRATA_S3_FORCE_PATH_STYLE: 'true',
    });
    expect(config.postgres).toEqual({ url: 'postgres://errata:pw@db:5432/errata', poolSize: 10 });
    expect(config.clickhouse).toMatchObject({
      url: 'http://ch:8123',
      database: 'errata',
      batchRows: 5000,
      batchWaitMs: 100,
      compression: 'none',
    });
    expect(
      loadConfig({ ERRATA_CLICKHOUSE_URL: 'http://ch:8123', ERRATA_CLICKHOUSE_COMPRESSION: 'gzip' }).clickhouse?.compression,
    ).toBe('gzip');
    expect(config.kafka).toMatchObject({ brokers: ['k1:9092', 'k2:9092'], topicPrefix: 'prod.', partitions: 8 });
    expect(config.s3).toMatchObject({ bucket: 'errata-maps', region: 'us-east-1', forcePathStyle: true, prefix: '' });
  });

  it('refuses bad distributed settings without echoing secrets', () => {
    expect(() => loadConfig({ ERRATA_KAFKA_BROKERS: 'k1:9092, k2' })).toThrow(
      /ERRATA_KAFKA_BROKERS="k1:9092, k2": a comma-separated/,
    );
    expect(() => loadConfig({ ERRATA_S3_BUCKET: 'B' })).toThrow(/ERRATA_S3_BUCKET/);
    expect(() => loadConfig({ ERRATA_CLICKHOUSE_COMPRESSION: 'lz4' })).toThrow(/ERRATA_CLICKHOUSE_COMPRESSION="lz4".*none.*gzip/);
    let message = '';
    try {
      loadConfig({ ERRATA_POSTGRES_URL: 'mysql://root:hunter2@db/x' });
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toMatch(/ERRATA_POSTGRES_URL="mysql:\/\/\*\*\*@db\/x":/);
    expect(message).not.toContain('hunter2');
    expect(() => loadConfig({ ERRATA_S3_ENDPOINT: 'ftp://AKIA:sekret@s3' })).toThrow(/ERRATA_S3_ENDPOINT="ftp:\/\/\*\*\*@s3"/);
    expect(() => loadConfig({ ERRATA_S3_BUCKET: 'maps', ERRATA_S3_SECRET_ACCESS_KEY: 'sekret' })).toThrow(
      /ERRATA_S3_ACCESS_KEY_ID: set both/,
    );
    expect(() => loadConfig({ ERRATA_S3_SECRET_ACCESS_KEY: 's', ERRATA_PORT: 'x' })).not.toThrow(/sekret/);
  });
});
