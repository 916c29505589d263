package dev.retrykit.redis;

import java.lang.System.Logger.Level;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import dev.retrykit.spi.CircuitSignal;
import dev.retrykit.spi.ClusterEngine.CircuitMessageReceiver;
import io.lettuce.core.pubsub.RedisPubSubAdapter;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import org.jspecify.annotations.Nullable;

/**
 * The circuit channel on Redis Pub/Sub. A message travels as {@code <member id> SPACE <message>}.
 * Redis tells a subscriber nothing about who published, so a receiver takes the id in front as the
 * sender of a circuit signal only if a member of that id is registered in the members' sorted set (it
 * heartbeats; {@link MemberCheck}); any other message is delivered with the sender
 * {@link MemberCheck#UNREGISTERED}, so made-up ids cannot count as distinct members in a quorum. Whoever
 * the Redis ACL lets publish on the channel and write the members' set can still claim a registered id:
 * Redis cannot authenticate a publisher beyond its ACL user.
 *
 * <p>What anyone publishes is bounded before it is copied ({@link BoundedPayloadCodec}): a longer payload
 * is delivered as {@code null}, as something that is not text is. Only a message that starts like a
 * signal ({@code TRIP|}, {@code FORCE_OPEN|}, {@code CLOSE|}) has its sender looked up. Nothing a
 * message or a receiver throws, {@code Error}s included, reaches Lettuce, and at every heartbeat (at most
 * once a second) the channel is subscribed again, so that a subscription lost in a way Lettuce does not
 * restore itself (a reconnect whose {@code SUBSCRIBE} an ACL refused until it was fixed) comes back.
 * Lettuce re-subscribes after a reconnect. Messages are handed to the receivers on the threads of
 * Lettuce's {@code eventExecutorGroup} (never its I/O threads), one at a time, in the order they arrived
 * (a message whose sender is looked up holds back those after it). Thread-safe.
 */
final class CircuitChannel extends RedisPubSubAdapter<String, byte[]> {

	private static final System.Logger LOGGER = System.getLogger(CircuitChannel.class.getName());

	private static final long RESUBSCRIBE_NANOS = TimeUnit.SECONDS.toNanos(1);

	private static final CompletableFuture<String> UNREGISTERED = CompletableFuture.completedFuture(MemberCheck.UNREGISTERED);

	private final String channel;

	private final String localMember;

	private final StatefulRedisPubSubConnection<String, byte[]> pubSub;

	private final MemberCheck members;

	private final List<CircuitMessageReceiver> receivers = new CopyOnWriteArrayList<>();

	/** Completes once every message received so far is delivered; never completes exceptionally. */
	private CompletableFuture<@Nullable Void> delivered = CompletableFuture.completedFuture(null);

	private volatile long lastSubscribe = System.nanoTime();

	CircuitChannel(String channel, String localMember, StatefulRedisPubSubConnection<String, byte[]> pubSub,
			MemberCheck members) {
		this.channel = channel;
		this.localMember = localMember;
		this.pubSub = pubSub;
		this.members = members;
		pubSub.addListener(this);
	}

	/** @return the envelope in which this replica publishes a message */
	byte[] envelope(String message) {
		return (this.localMember + " " + message).getBytes(StandardCharsets.UTF_8);
	}

	AutoCloseable subscribe(CircuitMessageReceiver receiver) {
		this.receivers.add(receiver);
		try {
			this.pubSub.sync().subscribe(this.channel);
			this.lastSubscribe = System.nanoTime();
		}
		catch (RuntimeException ex) {
			this.receivers.remove(receiver);
			throw ex;
		}
		return () -> unsubscribe(receiver);
	}

	private void unsubscribe(CircuitMessageReceiver receiver) {
		// By identity: the same receiver may have subscribed twice.
		for (int i = 0; i < this.receivers.size(); i++) {
			if (this.receivers.get(i) == receiver) {
				this.receivers.remove(i);
				break;
			}
		}
		if (this.receivers.isEmpty() && this.pubSub.isOpen()) {
			this.pubSub.async().unsubscribe(this.channel);
		}
	}

	/**
	 * Called at every heartbeat: forgets the looked-up senders and, at most once a second, subscribes the
	 * channel again without waiting (a no-op for the server when the subscription is there).
	 */
	void heartbeat() {
		this.members.heartbeat();
		long now = System.nanoTime();
		if (!this.receivers.isEmpty() && now - this.lastSubscribe >= RESUBSCRIBE_NANOS && this.pubSub.isOpen()) {
			this.lastSubscribe = now;
			this.pubSub.async().subscribe(this.channel);
		}
	}

	@Override
	public synchronized void message(String channel, byte[] payload) {
		if (!this.channel.equals(channel) || this.receivers.isEmpty()) {
			return;
		}
		try {
			if (payload == BoundedPayloadCodec.TOO_LONG || payload.length > BoundedPayloadCodec.MAX_PAYLOAD_BYTES) {
				deliverInOrder(null, UNREGISTERED);
				return;
			}
			int space = indexOf(payload, (byte) ' ');
			String claimed = (space > 0) ? text(Arrays.copyOfRange(payload, 0, space)) : null;
			String message = text((space > 0) ? Arrays.copyOfRange(payload, space + 1, payload.length) : payload);
			deliverInOrder(message, (claimed != null && isSignal(message)) ? this.members.sender(claimed) : UNREGISTERED);
		}
		catch (Throwable ex) {
			// Never into Lettuce's pipeline: a listener that throws there may stop the subscription's deliveries.
			LOGGER.log(Level.WARNING, "Dropped a circuit message that could not be handled", ex);
		}
	}

	/** Whether a message starts like a circuit signal, so that its sender matters. */
	private static boolean isSignal(@Nullable String message) {
		if (message == null) {
			return false;
		}
		for (CircuitSignal.Kind kind : CircuitSignal.Kind.values()) {
			if (message.startsWith(kind.name()) && message.length() > kind.name().length()
					&& message.charAt(kind.name().length()) == '|') {
				return true;
			}
		}
		return false;
	}

	/**
	 * Chained, so that a message whose sender is looked up on the server never overtakes an earlier one;
	 * handed to Lettuce's computation threads, so that no receiver runs on (or blocks) an I/O thread.
	 */
	private void deliverInOrder(@Nullable String message, CompletableFuture<String> sender) {
		this.delivered = this.delivered.thenCombine(sender.exceptionally(failure -> MemberCheck.UNREGISTERED), (previous, from) -> from)
			.handleAsync((from, failure) -> {
				deliver(message, (from != null) ? from : MemberCheck.UNREGISTERED);
				return null;
			}, this.pubSub.getResources().eventExecutorGroup());
	}

	private void deliver(@Nullable String message, String sender) {
		for (CircuitMessageReceiver receiver : this.receivers) {
			try {
				receiver.receive(message, sender);
			}
			catch (Throwable ex) {
				LOGGER.log(Level.WARNING, "A circuit message receiver threw; the contract says it must not", ex);
			}
		}
	}

	private static int indexOf(byte[] bytes, byte wanted) {
		for (int i = 0; i < bytes.length; i++) {
			if (bytes[i] == wanted) {
				return i;
			}
		}
		return -1;
	}

	/** @return the bytes as UTF-8 text, or {@code null} if they are not */
	private static @Nullable String text(byte[] bytes) {
		try {
			return StandardCharsets.UTF_8.newDecoder().decode(ByteBuffer.wrap(bytes)).toString();
		}
		catch (CharacterCodingException ex) {
			return null;
		}
	}

	void close() {
		this.pubSub.removeListener(this);
	}

}
