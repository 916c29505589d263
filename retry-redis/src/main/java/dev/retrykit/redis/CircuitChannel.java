package dev.retrykit.redis;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;

import dev.retrykit.spi.ClusterEngine.CircuitMessageReceiver;
import io.lettuce.core.api.async.RedisAsyncCommands;
import io.lettuce.core.pubsub.RedisPubSubAdapter;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import org.jspecify.annotations.Nullable;

/**
 * The circuit channel on Redis Pub/Sub. A message travels as {@code <member id> SPACE <message>}.
 * Redis tells a subscriber nothing about who published, so a receiver takes the id in front as the
 * sender only if a member of that id is registered in the members' sorted set (it heartbeats); any
 * other message is delivered with the sender {@link #UNREGISTERED}, so made-up ids cannot count as
 * distinct members in a quorum. Whoever the Redis ACL lets publish on the channel and write the members'
 * set can still claim a registered id: Redis cannot authenticate a publisher beyond its ACL user.
 *
 * <p>Lettuce re-subscribes after a reconnect. Messages are handed to the receivers on the threads of
 * Lettuce's {@code eventExecutorGroup} (never its I/O threads), one at a time, in the order they
 * arrived (a message whose sender is checked by an asynchronous {@code ZSCORE} on the command
 * connection holds back those after it). Thread-safe.
 */
final class CircuitChannel extends RedisPubSubAdapter<String, byte[]> {

	/** The sender of a message whose id names no registered member, or that has no id. */
	static final String UNREGISTERED = "unregistered";

	private final String channel;

	private final String membersKey;

	private final String localMember;

	private final StatefulRedisPubSubConnection<String, byte[]> pubSub;

	private final RedisAsyncCommands<String, byte[]> commands;

	private final List<CircuitMessageReceiver> receivers = new CopyOnWriteArrayList<>();

	/** Completes once every message received so far is delivered. */
	private CompletableFuture<@Nullable Void> delivered = CompletableFuture.completedFuture(null);

	CircuitChannel(String channel, String membersKey, String localMember, StatefulRedisPubSubConnection<String, byte[]> pubSub,
			RedisAsyncCommands<String, byte[]> commands) {
		this.channel = channel;
		this.membersKey = membersKey;
		this.localMember = localMember;
		this.pubSub = pubSub;
		this.commands = commands;
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

	@Override
	public synchronized void message(String channel, byte[] payload) {
		if (!this.channel.equals(channel) || this.receivers.isEmpty()) {
			return;
		}
		int space = indexOf(payload, (byte) ' ');
		String claimed = (space > 0) ? text(Arrays.copyOfRange(payload, 0, space)) : null;
		String message = text((space > 0) ? Arrays.copyOfRange(payload, space + 1, payload.length) : payload);
		CompletableFuture<String> sender;
		if (claimed == null) {
			sender = CompletableFuture.completedFuture(UNREGISTERED);
		}
		else if (claimed.equals(this.localMember)) {
			sender = CompletableFuture.completedFuture(claimed);
		}
		else {
			sender = this.commands.zscore(this.membersKey, claimed.getBytes(StandardCharsets.UTF_8)).toCompletableFuture()
				.handle((score, failure) -> (score != null) ? claimed : UNREGISTERED);
		}
		// Chained, so that a message whose sender is checked on the server never overtakes an earlier one;
		// handed to Lettuce's computation threads, so that no receiver runs on (or blocks) an I/O thread.
		this.delivered = this.delivered.thenCombine(sender, (previous, from) -> from)
			.handleAsync((from, failure) -> {
				deliver(message, (from != null) ? from : UNREGISTERED);
				return null;
			}, this.pubSub.getResources().eventExecutorGroup());
	}

	private void deliver(@Nullable String message, String sender) {
		for (CircuitMessageReceiver receiver : this.receivers) {
			try {
				receiver.receive(message, sender);
			}
			catch (RuntimeException ex) {
				System.getLogger(CircuitChannel.class.getName()).log(System.Logger.Level.WARNING,
						"A circuit message receiver threw; the contract says it must not", ex);
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
