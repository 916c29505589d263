package dev.retrykit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import dev.retrykit.backoff.BackoffPolicy;
import dev.retrykit.context.RetryContext;
import dev.retrykit.policy.RetryPolicy;
import org.junit.jupiter.api.Test;

import static dev.retrykit.FailingCalls.attemptsFor;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class RetryTemplateTests {

	private final VirtualTime time = new VirtualTime();

	private RetryTemplateBuilder template() {
		return RetryTemplate.builder().name("test").virtualTime(this.time);
	}

	@Test
	void successfulFirstAttemptCountsOneCallAndOneAttemptWithoutSleeping() throws Exception {
		RetryTemplate template = template().build();
		String result = template.execute(context -> "ok");
		assertThat(result).isEqualTo("ok");
		assertThat(template.getMetrics().getSuccessfulCallsWithoutRetry()).isEqualTo(1);
		assertThat(template.getMetrics().getAttempts()).isEqualTo(1);
		assertThat(this.time.sleeps()).isEmpty();
		assertThat(template.getMetrics().getRecentEvents()).isEmpty();
	}

	@Test
	void retriesUntilSuccessWaitingTheBackoffDelays() throws Exception {
		RetryTemplate template = template().maxAttempts(4).build();
		AtomicInteger calls = new AtomicInteger();
		String result = template.execute(context -> {
			if (calls.incrementAndGet() < 3) {
				throw new IOException("down " + context.getRetryCount());
			}
			return "ok after " + context.getRetryCount();
		});
		assertThat(result).isEqualTo("ok after 2");
		assertThat(this.time.sleeps()).containsExactly(Duration.ofMillis(100), Duration.ofMillis(200));
		RetryMetrics metrics = template.getMetrics();
		assertThat(metrics.getSuccessfulCallsWithRetry()).isEqualTo(1);
		assertThat(metrics.getAttempts()).isEqualTo(3);
		assertThat(metrics.getRecentEvents()).extracting(RetryEvent::type)
			.containsExactly(RetryEventType.RETRY, RetryEventType.RETRY, RetryEventType.SUCCESS_AFTER_RETRY);
	}

	@Test
	void exhaustedStatelessCallRethrowsTheLastExceptionUnchanged() throws Exception {
		RetryTemplate template = template().build();
		List<IOException> thrown = new ArrayList<>();
		assertThatThrownBy(() -> template.execute(context -> {
			IOException failure = new IOException("attempt " + (context.getRetryCount() + 1));
			thrown.add(failure);
			throw failure;
		})).isSameAs(thrown.get(2)).hasNoCause().hasNoSuppressedExceptions().hasMessage("attempt 3");
		assertThat(template.getMetrics().getFailedCallsWithRetry()).isEqualTo(1);
		assertThat(template.getMetrics().getAttempts()).isEqualTo(3);
		assertThat(template.getMetrics().getRecentEvents()).last().extracting(RetryEvent::type)
			.isEqualTo(RetryEventType.EXHAUSTED);
	}

	@Test
	void recoveryRunsWhenAttemptsAreExhausted() throws Exception {
		RetryTemplate template = template().maxAttempts(2).build();
		String result = template.execute(context -> {
			throw new IOException("down");
		}, context -> "fallback after " + context.getRetryCount() + " " + context.getLastThrowable().getMessage());
		assertThat(result).isEqualTo("fallback after 2 down");
		assertThat(template.getMetrics().getRecoveries()).isEqualTo(1);
		assertThat(template.getMetrics().getFailedCallsWithRetry()).isEqualTo(1);
	}

	@Test
	void nonRetryableFailureEndsTheCallAtOnceAndStillRecovers() throws Exception {
		RetryTemplate template = template().ignore(IllegalArgumentException.class).build();
		AtomicInteger calls = new AtomicInteger();
		String result = template.execute(context -> {
			calls.incrementAndGet();
			throw new IllegalArgumentException("bad input");
		}, context -> "recovered");
		assertThat(result).isEqualTo("recovered");
		assertThat(calls).hasValue(1);
		assertThat(template.getMetrics().getFailedCallsWithoutRetry()).isEqualTo(1);
	}

	@Test
	void ignoreWinsOverRetryOnAndMatchesSubclassesAndCauses() throws Exception {
		RetryTemplate template = template().retryOn(IOException.class).ignore(SocketTimeoutException.class).build();
		assertThat(attemptsFor(template, new SocketTimeoutException())).isEqualTo(1);
		assertThat(attemptsFor(template, new UncheckedIOException(new SocketTimeoutException()))).isEqualTo(1);
		assertThat(attemptsFor(template, new UncheckedIOException(new IOException()))).isEqualTo(3);
		assertThat(attemptsFor(template, new IllegalStateException())).isEqualTo(1);
	}

	@Test
	void causeTraversalCanBeTurnedOff() throws Exception {
		RetryTemplate template = template()
			.config(RetryConfig.builder().retryOn(IOException.class).traverseCauses(false).build()).build();
		assertThat(attemptsFor(template, new UncheckedIOException(new IOException()))).isEqualTo(1);
		assertThat(attemptsFor(template, new IOException())).isEqualTo(3);
	}

	@Test
	void errorsAreNotRetriedByDefaultButCanBeListed() throws Exception {
		assertThat(attemptsFor(template().build(), new StackOverflowError())).isEqualTo(1);
		assertThat(attemptsFor(template().retryOn(StackOverflowError.class).build(), new StackOverflowError()))
			.isEqualTo(3);
	}

	@Test
	void predicateDecidesRetryability() throws Exception {
		RetryTemplate template = template()
			.config(RetryConfig.builder().retryIf(failure -> failure.getMessage().contains("transient")).build())
			.build();
		assertThat(attemptsFor(template, new IllegalStateException("transient glitch"))).isEqualTo(3);
		assertThat(attemptsFor(template, new IllegalStateException("permanent"))).isEqualTo(1);
	}

	@Test
	void retriesOnResultAndReturnsTheLastResultWhenExhausted() throws Exception {
		RetryTemplate template = template().retryOnResult(result -> ((List<?>) result).isEmpty()).build();
		AtomicInteger calls = new AtomicInteger();
		List<String> result = template.execute(context -> {
			calls.incrementAndGet();
			return List.of();
		});
		assertThat(result).isEmpty();
		assertThat(calls).hasValue(3);
		assertThat(template.getMetrics().getFailedCallsWithRetry()).isEqualTo(1);
		List<String> later = template.execute(context -> (calls.incrementAndGet() < 5) ? List.of() : List.of("x"));
		assertThat(later).containsExactly("x");
	}

	@Test
	void retryOnResultExhaustionRunsRecovery() throws Exception {
		RetryTemplate template = template().retryOnResult(result -> result == null).build();
		String result = template.execute(context -> (String) null, context -> "default");
		assertThat(result).isEqualTo("default");
	}

	@Test
	void unlimitedAttemptsKeepRetrying() throws Exception {
		RetryTemplate template = template().maxAttempts(-1).backoff(BackoffPolicy.none()).build();
		AtomicInteger calls = new AtomicInteger();
		int retries = template.execute(context -> {
			if (calls.incrementAndGet() < 10_000) {
				throw new IOException();
			}
			return context.getRetryCount();
		});
		assertThat(retries).isEqualTo(9_999);
	}

	@Test
	void zeroDelayNeverCallsTheSleeper() throws Exception {
		List<Long> sleeps = new ArrayList<>();
		RetryTemplate template = RetryTemplate.builder().backoff(BackoffPolicy.none()).sleeper(sleeps::add).build();
		assertThat(attemptsFor(template, new IOException())).isEqualTo(3);
		assertThat(sleeps).isEmpty();
	}

	@Test
	void maxDurationSkipsABackoffThatWouldCrossTheDeadline() throws Exception {
		RetryTemplate template = template().maxAttempts(-1).maxDuration(Duration.ofMillis(1000))
			.backoff(BackoffPolicy.fixed(Duration.ofMillis(300))).build();
		AtomicInteger calls = new AtomicInteger();
		assertThatThrownBy(() -> template.execute(context -> {
			calls.incrementAndGet();
			throw new IOException();
		})).isInstanceOf(IOException.class);
		assertThat(calls).hasValue(4);
		assertThat(this.time.sleeps()).hasSize(3);
		assertThat(this.time.elapsed()).isLessThan(Duration.ofMillis(1000));
	}

	@Test
	void maxDurationCountsTheTimeSpentInAttempts() throws Exception {
		RetryTemplate template = template().maxAttempts(-1).maxDuration(Duration.ofSeconds(1))
			.backoff(BackoffPolicy.none()).build();
		AtomicInteger calls = new AtomicInteger();
		assertThatThrownBy(() -> template.execute(context -> {
			calls.incrementAndGet();
			this.time.advance(Duration.ofMillis(400));
			throw new IOException();
		})).isInstanceOf(IOException.class);
		assertThat(calls).hasValue(3);
	}

	@Test
	void interruptDuringBackoffEndsTheCallAndRestoresTheFlag() throws Exception {
		IOException failure = new IOException("down");
		RetryTemplate template = RetryTemplate.builder().name("inventory").sleeper(nanos -> {
			throw new InterruptedException();
		}).build();
		try {
			assertThatThrownBy(() -> template.execute(context -> {
				throw failure;
			})).isInstanceOf(RetryInterruptedException.class).hasCause(failure)
				.hasMessageContaining("'inventory' was interrupted while waiting 100ms before attempt 2");
			assertThat(Thread.currentThread().isInterrupted()).isTrue();
			assertThat(template.getMetrics().getFailedCallsWithoutRetry()).isEqualTo(1);
		}
		finally {
			Thread.interrupted();
		}
	}

	@Test
	void delayHintReplacesTheComputedDelayUpToItsCeiling() throws Exception {
		RetryTemplate template = template()
			.config(RetryConfig.builder().maxAttempts(3).maxDelayHint(Duration.ofSeconds(5))
				.delayHint(failure -> (failure instanceof HintedException hinted) ? hinted.hint : null).build())
			.build();
		AtomicInteger calls = new AtomicInteger();
		assertThatThrownBy(() -> template.execute(context -> {
			throw (calls.incrementAndGet() == 1) ? new HintedException(Duration.ofSeconds(2))
					: new HintedException(Duration.ofSeconds(30));
		})).isInstanceOf(HintedException.class);
		assertThat(this.time.sleeps()).containsExactly(Duration.ofSeconds(2), Duration.ofSeconds(5));
	}

	@Test
	void delayHintIsStillBoundedByMaxDuration() throws Exception {
		RetryTemplate template = template()
			.config(RetryConfig.builder().maxDuration(Duration.ofSeconds(3))
				.delayHint(failure -> Duration.ofSeconds(10)).build())
			.build();
		assertThat(attemptsFor(template, new IOException())).isEqualTo(1);
		assertThat(this.time.sleeps()).isEmpty();
	}

	@Test
	void customStopConditionEndsRetries() throws Exception {
		RetryTemplate template = template().maxAttempts(10)
			.policy(RetryPolicy.stopWhen(context -> context.getLastThrowable() instanceof SocketTimeoutException))
			.build();
		assertThat(attemptsFor(template, new SocketTimeoutException())).isEqualTo(1);
		assertThat(attemptsFor(template, new IOException())).isEqualTo(10);
	}

	@Test
	void perExceptionTypePolicyChoosesByClosestType() throws Exception {
		RetryPolicy policy = RetryPolicy.byExceptionTypeCountingAllFailures()
			.on(IOException.class, RetryPolicy.maxAttempts(2))
			.on(SocketTimeoutException.class, RetryPolicy.maxAttempts(5))
			.otherwise(RetryPolicy.never())
			.build();
		RetryTemplate template = template().maxAttempts(-1).policy(policy).backoff(BackoffPolicy.none()).build();
		assertThat(attemptsFor(template, new SocketTimeoutException())).isEqualTo(5);
		assertThat(attemptsFor(template, new IOException())).isEqualTo(2);
		assertThat(attemptsFor(template, new IllegalStateException())).isEqualTo(1);
	}

	@Test
	void compositePoliciesAreOptimisticOrPessimistic() throws Exception {
		RetryPolicy twice = RetryPolicy.maxAttempts(2);
		RetryPolicy fourTimes = RetryPolicy.maxAttempts(4);
		RetryTemplate any = template().maxAttempts(-1).policy(RetryPolicy.anyOf(twice, fourTimes)).build();
		RetryTemplate all = template().maxAttempts(-1).policy(RetryPolicy.allOf(twice, fourTimes)).build();
		assertThat(attemptsFor(any, new IOException())).isEqualTo(4);
		assertThat(attemptsFor(all, new IOException())).isEqualTo(2);
		assertThat(attemptsFor(template().policy(RetryPolicy.never()).build(), new IOException())).isEqualTo(1);
		assertThat(attemptsFor(template().maxAttempts(5).policy(RetryPolicy.always()).build(), new IOException()))
			.isEqualTo(5);
	}

	@Test
	void setExhaustedOnlyStopsAfterTheCurrentAttempt() throws Exception {
		RetryTemplate template = template().maxAttempts(5).build();
		AtomicInteger calls = new AtomicInteger();
		assertThatThrownBy(() -> template.execute(context -> {
			if (calls.incrementAndGet() == 2) {
				context.setExhaustedOnly();
			}
			throw new IOException();
		})).isInstanceOf(IOException.class);
		assertThat(calls).hasValue(2);
	}

	@Test
	void currentContextIsVisibleInsideAndNestedCallsSeeTheirOwn() throws Exception {
		RetryTemplate outer = template().name("outer").build();
		RetryTemplate inner = template().name("inner").build();
		assertThat(RetryTemplate.currentContext()).isNull();
		String names = outer.execute(outerContext -> {
			assertThat(RetryTemplate.currentContext()).isSameAs(outerContext);
			String nested = inner.execute(innerContext -> {
				assertThat(RetryTemplate.currentContext()).isSameAs(innerContext);
				assertThat(innerContext.getParent()).isSameAs(outerContext);
				return innerContext.getName();
			});
			assertThat(RetryTemplate.currentContext()).isSameAs(outerContext);
			return outerContext.getName() + ">" + nested;
		});
		assertThat(names).isEqualTo("outer>inner");
		assertThat(RetryTemplate.currentContext()).isNull();
	}

	@Test
	void aFinishedCallLeavesNoFailureOrAttributeBehindOnItsThread() throws Exception {
		RetryTemplate template = template().maxAttempts(2).build();
		RetryContext[] seen = new RetryContext[1];
		assertThatThrownBy(() -> template.execute(context -> {
			seen[0] = context;
			context.setAttribute("secret", "value");
			throw new IOException("holds a large object graph");
		})).isInstanceOf(IOException.class);
		assertThat(seen[0].getLastThrowable()).isNull();
		assertThat(seen[0].getRetryCount()).isZero();
		assertThat(seen[0].hasAttribute("secret")).isFalse();
	}

	@Test
	void attributesLiveForOneCall() throws Exception {
		RetryTemplate template = template().build();
		AtomicInteger calls = new AtomicInteger();
		template.execute(context -> {
			if (calls.incrementAndGet() == 1) {
				context.setAttribute("seen", "first");
				throw new IOException();
			}
			assertThat(context.getAttribute("seen")).isEqualTo("first");
			return null;
		});
		template.execute(context -> {
			assertThat(context.hasAttribute("seen")).isFalse();
			return null;
		});
	}

	@Test
	void anAttributeSetByACallThatSucceededAtOnceIsGoneForTheNextCall() throws Exception {
		RetryTemplate template = template().build();
		template.execute(context -> {
			context.setAttribute("seen", "first");
			return null;
		});
		template.execute(context -> {
			assertThat(context.hasAttribute("seen")).isFalse();
			assertThat(context.getRetryCount()).isZero();
			return null;
		});
	}

	@Test
	void aFunctionGetsItsArgumentOnEveryAttempt() throws Exception {
		RetryTemplate template = template().maxAttempts(3).build();
		List<String> arguments = new ArrayList<>();
		String result = template.execute((String sku, RetryContext context) -> {
			arguments.add(sku);
			assertThat(RetryTemplate.currentContext()).isSameAs(context);
			if (context.getRetryCount() < 2) {
				throw new IOException("attempt " + (context.getRetryCount() + 1));
			}
			return sku.toUpperCase();
		}, "sku-1");
		assertThat(result).isEqualTo("SKU-1");
		assertThat(arguments).containsExactly("sku-1", "sku-1", "sku-1");
		assertThat(template.getMetrics().getAttempts()).isEqualTo(3);
		assertThat(template.getMetrics().getSuccessfulCallsWithRetry()).isEqualTo(1);
		assertThat(RetryTemplate.currentContext()).isNull();
	}

	@Test
	void aFunctionsLastFailureIsRethrownUnchanged() {
		RetryTemplate template = template().maxAttempts(2).build();
		IOException failure = new IOException("down");
		assertThatThrownBy(() -> template.execute((Integer id, RetryContext context) -> {
			throw failure;
		}, 7)).isSameAs(failure);
		assertThat(template.getMetrics().getAttempts()).isEqualTo(2);
		assertThat(template.getMetrics().getFailedCallsWithRetry()).isEqualTo(1);
		assertThat(RetryTemplate.currentContext()).isNull();
	}

	@Test
	void countsAreTheSameWhetherOrNotAnythingWatchesTheCall() throws Exception {
		RetryTemplate plain = template().maxAttempts(3).build();
		RetryTemplate watched = template().maxAttempts(3).listener(new RetryListener() {
		}).build();
		for (RetryTemplate template : List.of(plain, watched)) {
			template.execute(context -> "at once");
			AtomicInteger calls = new AtomicInteger();
			template.execute(context -> {
				if (calls.incrementAndGet() == 1) {
					throw new IOException();
				}
				return "second";
			});
			assertThatThrownBy(() -> template.execute(context -> {
				throw new InternalError("an Error is not retried by default");
			})).isInstanceOf(InternalError.class);
			RetryMetrics metrics = template.getMetrics();
			assertThat(metrics.getAttempts()).isEqualTo(4);
			assertThat(metrics.getSuccessfulCallsWithoutRetry()).isEqualTo(1);
			assertThat(metrics.getSuccessfulCallsWithRetry()).isEqualTo(1);
			assertThat(metrics.getFailedCallsWithoutRetry()).isEqualTo(1);
		}
	}

	static final class HintedException extends RuntimeException {

		final Duration hint;

		HintedException(Duration hint) {
			super("retry after " + hint);
			this.hint = hint;
		}

	}

}
