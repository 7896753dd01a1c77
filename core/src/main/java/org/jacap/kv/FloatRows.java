package org.jacap.kv;

/**
 * Float rows of one KV head as attention reads them: row i at {@code data[offset + i * dim]}.
 * For f32 storage {@code data} is the live array; for the other types a scratch array filled
 * by {@link KvRows#read}.
 */
public record FloatRows(float[] data, int offset) {}
