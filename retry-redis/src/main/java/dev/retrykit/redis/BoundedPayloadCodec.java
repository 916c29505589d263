package dev.retrykit.redis;

import java.nio.ByteBuffer;

import dev.retrykit.spi.CircuitSignal;
import io.lettuce.core.codec.ByteArrayCodec;
import io.lettuce.core.codec.RedisCodec;
import io.lettuce.core.codec.StringCodec;

/**
 * The codec of the engine's Pub/Sub connection: channel names as UTF-8 strings, payloads as bytes, but a
 * payload longer than an envelope of a circuit message can be ({@value #MAX_PAYLOAD_BYTES} bytes: a
 * member id, a space and a {@linkplain CircuitSignal#MAX_ENCODED_LENGTH longest signal} of 3-byte
 * characters) is not copied: it decodes to {@link #TOO_LONG}, which the channel counts as a message that
 * is not one. So what anyone publishes on the channel costs a replica at most that many bytes of heap,
 * whatever its length (Lettuce's network buffer holds it meanwhile, as it holds every reply). Stateless and
 * thread-safe.
 */
final class BoundedPayloadCodec implements RedisCodec<String, byte[]> {

	/** The longest payload copied: 64 bytes of member id, a space, and 3 bytes for each character of a longest signal. */
	static final int MAX_PAYLOAD_BYTES = 64 + 1 + 3 * CircuitSignal.MAX_ENCODED_LENGTH;

	/** What a longer payload decodes to, told apart by identity. */
	static final byte[] TOO_LONG = new byte[0];

	static final BoundedPayloadCodec INSTANCE = new BoundedPayloadCodec();

	private BoundedPayloadCodec() {
	}

	@Override
	public String decodeKey(ByteBuffer bytes) {
		return StringCodec.UTF8.decodeKey(bytes);
	}

	@Override
	public byte[] decodeValue(ByteBuffer bytes) {
		if (bytes.remaining() > MAX_PAYLOAD_BYTES) {
			bytes.position(bytes.limit());
			return TOO_LONG;
		}
		return ByteArrayCodec.INSTANCE.decodeValue(bytes);
	}

	@Override
	public ByteBuffer encodeKey(String key) {
		return StringCodec.UTF8.encodeKey(key);
	}

	@Override
	public ByteBuffer encodeValue(byte[] value) {
		return ByteArrayCodec.INSTANCE.encodeValue(value);
	}

}
