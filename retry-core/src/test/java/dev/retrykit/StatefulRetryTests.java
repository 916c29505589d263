package dev.retrykit;

import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;

import dev.retrykit.backoff.BackoffPolicy;
import dev.retrykit.context.RetryContext;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class StatefulRetryTests {

	private final VirtualTime time = new VirtualTime();

	private final RetryTemplate template = RetryTemplate.builder().name("orders").virtualTime(this.time)
		.backoff(BackoffPolicy.fixed(Duration.ofMillis(500))).build();

	private final AtomicInteger attempts = new AtomicInteger();

	private String failingCall(RetryContext context) throws IOException {
		this.attempts.incrementAndGet();
		throw new IOException("attempt " + (context.getRetryCount() + 1));
	}

	@Test
	void eachCallMakesOneAttemptRethrowsAndTheNextContinuesTheCount() throws Exception {
		RetryState state = RetryState.of("message-1");
		assertThatThrownBy(() -> this.template.execute(this::failingCall, state)).hasMessage("attempt 1");
		assertThat(this.template.getContextCache().size()).isEqualTo(1);
		assertThatThrownBy(() -> this.template.execute(this::failingCall, state)).hasMessage("attempt 2");
		assertThatThrownBy(() -> this.template.execute(this::failingCall, state)).hasMessage("attempt 3");
		assertThatThrownBy(() -> this.template.execute(this::failingCall, state))
			.isInstanceOf(ExhaustedRetryException.class)
			.hasMessageContaining("'orders' exhausted after 3 failed attempts")
			.cause().hasMessage("attempt 3");
		assertThat(this.attempts).hasValue(3);
		assertThat(this.template.getContextCache().size()).isZero();
		// Every call is counted once, as its observation reports it: the first failed without retry, the others
		// (the key's second and third attempts, and the delivery that found it exhausted) with retry.
		assertThat(this.template.getMetrics().getFailedCallsWithoutRetry()).isEqualTo(1);
		assertThat(this.template.getMetrics().getFailedCallsWithRetry()).isEqualTo(3);
	}

	@Test
	void aRethrownFailureIsACountedFailedCallAndTheLastAllowedAttemptIsAnEvent() {
		RetryState state = RetryState.of("message-1");
		for (int call = 1; call <= 3; call++) {
			assertThatThrownBy(() -> this.template.execute(this::failingCall, state)).isInstanceOf(IOException.class);
		}
		RetryMetrics metrics = this.template.getMetrics();
		assertThat(metrics.getFailedCallsWithoutRetry() + metrics.getFailedCallsWithRetry()).isEqualTo(3);
		assertThat(metrics.getRecentEvents()).extracting(RetryEvent::type, RetryEvent::attempt, RetryEvent::delay)
			.containsExactly(org.assertj.core.groups.Tuple.tuple(RetryEventType.RETRY, 1, Duration.ofMillis(500)),
					org.assertj.core.groups.Tuple.tuple(RetryEventType.STATEFUL_RETHROW, 1, Duration.ofMillis(500)),
					org.assertj.core.groups.Tuple.tuple(RetryEventType.RETRY, 2, Duration.ofMillis(500)),
					org.assertj.core.groups.Tuple.tuple(RetryEventType.STATEFUL_RETHROW, 2, Duration.ofMillis(500)),
					org.assertj.core.groups.Tuple.tuple(RetryEventType.STATEFUL_RETHROW, 3, Duration.ZERO));
	}

	@Test
	void aContextReadBackFromAForeignCacheKeepsItsDeadlineFromTheCallNotFromTimeZero() throws Exception {
		// A cache that stores its own copy of a context, as a distributed cache would.
		java.util.Map<Object, RetryContext> store = new java.util.HashMap<>();
		dev.retrykit.spi.RetryContextCache copying = new dev.retrykit.spi.RetryContextCache() {
			@Override
			public RetryContext get(Object key) {
				return store.get(key);
			}

			@Override
			public void put(Object key, RetryContext context) {
				int count = context.getRetryCount();
				Throwable last = context.getLastThrowable();
				boolean exhausted = context.isExhaustedOnly();
				store.put(key, new RetryContext() {
					@Override
					public String getName() {
						return "orders";
					}

					@Override
					public int getRetryCount() {
						return count;
					}

					@Override
					public Throwable getLastThrowable() {
						return last;
					}

					@Override
					public RetryContext getParent() {
						return null;
					}

					@Override
					public void setExhaustedOnly() {
					}

					@Override
					public boolean isExhaustedOnly() {
						return exhausted;
					}

					@Override
					public Object getAttribute(String name) {
						return null;
					}

					@Override
					public void setAttribute(String name, Object value) {
					}

					@Override
					public boolean hasAttribute(String name) {
						return false;
					}
				});
			}

			@Override
			public void remove(Object key) {
				store.remove(key);
			}

			@Override
			public int size() {
				return store.size();
			}

			@Override
			public int capacity() {
				return Integer.MAX_VALUE;
			}

			@Override
			public long evictions() {
				return 0;
			}

			@Override
			public void clear() {
				store.clear();
			}

			@Override
			public java.util.List<dev.retrykit.spi.RetryContextCacheEntry> entries(int limit) {
				return java.util.List.of();
			}
		};
		this.time.advance(Duration.ofHours(1));
		RetryTemplate template = RetryTemplate.builder().virtualTime(this.time).maxAttempts(5)
			.maxDuration(Duration.ofMinutes(10)).backoff(BackoffPolicy.fixed(Duration.ofMillis(500)))
			.contextCache(copying).build();
		RetryState state = RetryState.of("message-1");
		for (int attempt = 1; attempt <= 4; attempt++) {
			assertThatThrownBy(() -> template.execute(this::failingCall, state)).isInstanceOf(IOException.class);
		}
		assertThat(this.attempts).hasValue(4);
		assertThat(store.get("message-1").getRetryCount()).isEqualTo(4);
	}

	@Test
	void exhaustedCallRecoversWhenThereIsARecovery() throws Exception {
		RetryState state = RetryState.of("message-2");
		for (int i = 0; i < 3; i++) {
			assertThatThrownBy(() -> this.template.execute(this::failingCall, context -> "dead-lettered", state))
				.isInstanceOf(IOException.class);
		}
		String recovered = this.template.execute(this::failingCall, context -> "dead-lettered", state);
		assertThat(recovered).isEqualTo("dead-lettered");
		assertThat(this.template.getMetrics().getRecoveries()).isEqualTo(1);
	}

	@Test
	void theNextCallWaitsOnlyWhatRemainsOfTheBackoff() throws Exception {
		RetryState state = RetryState.of("message-3");
		assertThatThrownBy(() -> this.template.execute(this::failingCall, state)).isInstanceOf(IOException.class)
			.hasMessage("attempt 1");
		this.time.advance(Duration.ofMillis(200));
		String result = this.template.execute(context -> "ok", state);
		assertThat(result).isEqualTo("ok");
		assertThat(this.time.sleeps()).containsExactly(Duration.ofMillis(300));
		assertThat(this.template.getContextCache().size()).isZero();
		assertThat(this.template.getMetrics().getSuccessfulCallsWithRetry()).isEqualTo(1);
	}

	@Test
	void differentKeysCountSeparately() throws Exception {
		assertThatThrownBy(() -> this.template.execute(this::failingCall, RetryState.of("a"))).hasMessage("attempt 1");
		assertThatThrownBy(() -> this.template.execute(this::failingCall, RetryState.of("b"))).hasMessage("attempt 1");
		assertThatThrownBy(() -> this.template.execute(this::failingCall, RetryState.of("a"))).hasMessage("attempt 2");
	}

	@Test
	void forceRefreshStartsAFreshContext() throws Exception {
		assertThatThrownBy(() -> this.template.execute(this::failingCall, RetryState.of("a"))).hasMessage("attempt 1");
		assertThatThrownBy(() -> this.template.execute(this::failingCall, RetryState.of("a", true)))
			.hasMessage("attempt 1");
	}

	@Test
	void failuresThatNeedNoRollbackAreRetriedWithinTheCall() throws Exception {
		RetryState state = new RetryState("message-4", false, failure -> !(failure instanceof IllegalStateException));
		AtomicInteger calls = new AtomicInteger();
		String result = this.template.execute(context -> {
			if (calls.incrementAndGet() == 1) {
				throw new IllegalStateException("no rollback needed");
			}
			return "ok";
		}, state);
		assertThat(result).isEqualTo("ok");
		assertThat(calls).hasValue(2);
	}

	@Test
	void nonRetryableFailureIsRethrownAndTheNextCallReportsItExhausted() throws Exception {
		RetryTemplate strict = RetryTemplate.builder().virtualTime(this.time).ignore(IllegalArgumentException.class)
			.build();
		IllegalArgumentException bad = new IllegalArgumentException("bad");
		assertThatThrownBy(() -> strict.execute(context -> {
			throw bad;
		}, RetryState.of("k"))).isSameAs(bad);
		assertThat(strict.getContextCache().size()).isEqualTo(1);
		assertThatThrownBy(() -> strict.execute(context -> "never", RetryState.of("k")))
			.isInstanceOf(ExhaustedRetryException.class).hasCause(bad);
		assertThat(strict.getContextCache().size()).isZero();
	}

	@Test
	void aFullCacheEvictsTheEldestAndCountsIt() throws Exception {
		RetryTemplate small = RetryTemplate.builder().virtualTime(this.time)
			.contextCache(new InMemoryRetryContextCache(2, this.time)).build();
		for (String key : new String[] { "a", "b", "c" }) {
			assertThatThrownBy(() -> small.execute(this::failingCall, RetryState.of(key))).isInstanceOf(IOException.class)
				.hasMessage("attempt 1");
		}
		assertThat(small.getContextCache().size()).isEqualTo(2);
		assertThat(small.getContextCache().evictions()).isEqualTo(1);
		assertThat(small.getContextCache().entries(10)).extracting(entry -> entry.key()).containsExactly("b", "c");
		assertThatThrownBy(() -> small.execute(this::failingCall, RetryState.of("a"))).hasMessage("attempt 1");
	}

	@Test
	void currentContextIsTheCachedOne() throws Exception {
		RetryState state = RetryState.of("k");
		assertThatThrownBy(() -> this.template.execute(this::failingCall, state)).isInstanceOf(IOException.class)
			.hasMessage("attempt 1");
		int seen = this.template.execute(context -> RetryTemplate.currentContext().getRetryCount(), state);
		assertThat(seen).isEqualTo(1);
	}

}
