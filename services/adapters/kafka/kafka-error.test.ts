import { MultipleErrors, ResponseError } from '@platformatic/kafka';
import { describe, expect, it } from 'vitest';
import { isKafkaError, onlyKafkaError } from './kafka-error.ts';

/** A CreateTopics answer (API 19, v7) with the given error code for each topic, as the client builds it. */
function createTopicsAnswer(...codes: number[]): ResponseError {
  const errors = Object.fromEntries(codes.map((code, i) => [`/topics/${i}`, [code, null] as [number, null]]));
  return new ResponseError(19, 7, errors, {});
}

const TOPIC_ALREADY_EXISTS = 36;
const INVALID_REPLICATION_FACTOR = 38;

describe('the broker’s error codes in a client error', () => {
  it('finds a code anywhere, also inside the aggregate of a retried request', () => {
    const answer = createTopicsAnswer(TOPIC_ALREADY_EXISTS, INVALID_REPLICATION_FACTOR);
    expect(isKafkaError(answer, 'INVALID_REPLICATION_FACTOR')).toBe(true);
    expect(isKafkaError(new MultipleErrors('createTopics failed 1 times.', [answer]), 'TOPIC_ALREADY_EXISTS')).toBe(true);
    expect(isKafkaError(answer, 'OFFSET_OUT_OF_RANGE')).toBe(false);
    expect(isKafkaError(new Error('connection refused'), 'TOPIC_ALREADY_EXISTS')).toBe(false);
  });

  it('tells a response of only one code from one that mixes in another', () => {
    // A racing creator made every topic: done. One topic refused for another reason: a failure.
    expect(onlyKafkaError(createTopicsAnswer(TOPIC_ALREADY_EXISTS, TOPIC_ALREADY_EXISTS), 'TOPIC_ALREADY_EXISTS')).toBe(true);
    const mixed = new MultipleErrors('createTopics failed 1 times.', [
      createTopicsAnswer(TOPIC_ALREADY_EXISTS, INVALID_REPLICATION_FACTOR),
    ]);
    expect(onlyKafkaError(mixed, 'TOPIC_ALREADY_EXISTS')).toBe(false);
    expect(onlyKafkaError(new Error('connection refused'), 'TOPIC_ALREADY_EXISTS')).toBe(false);
  });
});
