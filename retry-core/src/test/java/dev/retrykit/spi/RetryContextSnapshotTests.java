package dev.retrykit.spi;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;

import dev.retrykit.ExhaustedRetryException;
import dev.retrykit.context.RetryContext;
import dev.retrykit.RetryState;
import dev.retrykit.RetryTemplate;
import dev.retrykit.VirtualTime;
import dev.retrykit.backoff.BackoffPolicy;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Stateful retry over a cache whose entries leave the JVM, as a distributed map's do. */
class RetryContextSnapshotTests {

	private final VirtualTime time = new VirtualTime();

	private final SerializingCache cache = new SerializingCache();

	private final RetryTemplate template = RetryTemplate.builder().virtualTime(this.time).maxAttempts(3)
		.backoff(BackoffPolicy.none()).contextCache(this.cache).build();

	@Test
	void aCallContinuesFromASerializedSnapshotWithItsCountAttributesAndLastFailure() {
		RetryState state = RetryState.of("message-1");
		assertThatThrownBy(() -> this.template.execute(context -> {
			context.setAttribute("tenant", "acme");
			throw new IOException("down 1");
		}, state)).hasMessage("down 1");
		List<String> seen = new ArrayList<>();
		for (int call = 2; call <= 3; call++) {
			int current = call;
			assertThatThrownBy(() -> this.template.execute(context -> {
				seen.add(context.getRetryCount() + " " + context.getAttribute("tenant"));
				throw new IOException("down " + current);
			}, state)).hasMessage("down " + call);
		}
		assertThat(seen).containsExactly("1 acme", "2 acme");

		assertThatThrownBy(() -> this.template.execute(context -> "never", state))
			.isInstanceOf(ExhaustedRetryException.class)
			.cause().isInstanceOf(RetryContextSnapshot.RecordedFailure.class)
			.hasMessage("java.io.IOException: down 3");
		assertThat(this.cache.size()).isZero();
	}

	@Test
	void aDecodedSnapshotShowsLineBreaksAndBidiControlsOfItsFailureAsEscapesSoThatALoggedMessageCannotForgeLines() {
		String forged = "refused\r\n2026-11-28 INFO payment accepted\u2028\u202eevil\u0000";
		RetryContextSnapshot snapshot = RetryContextSnapshot.of("inventory", 1, false, "com.example.Boom\nX", forged, 0,
				Map.of());
		assertThat(snapshot.getLastFailureMessage())
			.isEqualTo("refused\\u000d\\u000a2026-11-28 INFO payment accepted\\u2028\\u202eevil\\u0000");
		assertThat(snapshot.getLastFailureType()).isEqualTo("com.example.Boom\\u000aX");
		assertThat(snapshot.getLastThrowable().getMessage()).endsWith(snapshot.getLastFailureMessage())
			.doesNotContain("\n", "\r", "\u202e");
		assertThat(snapshot.getLastFailureMessage().chars().noneMatch(c -> CircuitSignal.isUnsafe((char) c))).isTrue();
		// Ordinary text, tabs aside, is kept as it was.
		assertThat(RetryContextSnapshot.of("inventory", 1, false, null, "HTTP 503 — Service Unavailable (é)", 0, Map.of())
			.getLastFailureMessage()).isEqualTo("HTTP 503 — Service Unavailable (é)");
	}

	@Test
	void aSnapshotKeepsABoundedMessageAndIsImmutable() {
		RetryContextSnapshot snapshot = RetryContextSnapshot.of(new RetryContextSnapshotTests.Failed("x".repeat(5000)), 42);
		assertThat(snapshot.getLastFailureMessage()).hasSize(RetryContextSnapshot.MAX_MESSAGE_LENGTH);
		assertThat(snapshot.getFirstFailureMillis()).isEqualTo(42);
		assertThatThrownBy(() -> snapshot.setAttribute("a", "b")).isInstanceOf(UnsupportedOperationException.class)
			.hasMessageContaining("immutable");
	}

	/** A context whose last failure has a long message. */
	private record Failed(String message) implements RetryContext {

		@Override
		public String getName() {
			return "orders";
		}

		@Override
		public int getRetryCount() {
			return 1;
		}

		@Override
		public Throwable getLastThrowable() {
			return new IOException(this.message);
		}

		@Override
		public @Nullable RetryContext getParent() {
			return null;
		}

		@Override
		public void setExhaustedOnly() {
		}

		@Override
		public boolean isExhaustedOnly() {
			return false;
		}

		@Override
		public @Nullable Object getAttribute(String name) {
			return null;
		}

		@Override
		public void setAttribute(String name, @Nullable Object value) {
		}

		@Override
		public boolean hasAttribute(String name) {
			return false;
		}

	}

	/** Keeps each context as the bytes of its snapshot, as a distributed map would. */
	private static final class SerializingCache implements RetryContextCache {

		private final Map<Object, byte[]> entries = new HashMap<>();

		private final Map<Object, Long> firstFailures = new HashMap<>();

		@Override
		public synchronized @Nullable RetryContext get(Object key) {
			byte[] bytes = this.entries.get(key);
			return (bytes != null) ? read(bytes) : null;
		}

		@Override
		public synchronized void put(Object key, RetryContext context) {
			long first = this.firstFailures.computeIfAbsent(key, k -> (long) this.firstFailures.size());
			this.entries.put(key, write(RetryContextSnapshot.of(context, first)));
		}

		@Override
		public synchronized @Nullable RetryContext update(Object key, UnaryOperator<@Nullable RetryContext> update) {
			RetryContext next = update.apply(get(key));
			if (next == null) {
				remove(key);
			}
			else {
				put(key, next);
			}
			return next;
		}

		@Override
		public synchronized void remove(Object key) {
			this.entries.remove(key);
			this.firstFailures.remove(key);
		}

		@Override
		public synchronized int size() {
			return this.entries.size();
		}

		@Override
		public int capacity() {
			return -1;
		}

		@Override
		public long evictions() {
			return 0;
		}

		@Override
		public synchronized void clear() {
			this.entries.clear();
		}

		@Override
		public List<RetryContextCacheEntry> entries(int limit) {
			return List.of();
		}

		private static byte[] write(RetryContextSnapshot snapshot) {
			try (ByteArrayOutputStream bytes = new ByteArrayOutputStream();
					ObjectOutputStream out = new ObjectOutputStream(bytes)) {
				out.writeObject(snapshot);
				out.flush();
				return bytes.toByteArray();
			}
			catch (IOException ex) {
				throw new UncheckedIOException(ex);
			}
		}

		private static RetryContext read(byte[] bytes) {
			try (ObjectInputStream in = new ObjectInputStream(new ByteArrayInputStream(bytes))) {
				return (RetryContext) in.readObject();
			}
			catch (IOException ex) {
				throw new UncheckedIOException(ex);
			}
			catch (ClassNotFoundException ex) {
				throw new IllegalStateException(ex);
			}
		}

	}

}
