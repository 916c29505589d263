package dev.retrykit.spring.boot.aop

import dev.retrykit.RetryRegistry
import dev.retrykit.VirtualTime
import dev.retrykit.annotation.Recover
import dev.retrykit.annotation.Retryable
import dev.retrykit.spring.boot.autoconfigure.RetryAutoConfiguration
import kotlinx.coroutines.ExperimentalCoroutinesApi
import kotlinx.coroutines.async
import kotlinx.coroutines.flow.Flow
import kotlinx.coroutines.flow.flow
import kotlinx.coroutines.flow.flowOf
import kotlinx.coroutines.flow.toList
import kotlinx.coroutines.test.runCurrent
import kotlinx.coroutines.test.runTest
import org.assertj.core.api.Assertions.assertThat
import org.junit.jupiter.api.Test
import org.springframework.boot.autoconfigure.AutoConfigurations
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration
import org.springframework.boot.test.context.runner.ApplicationContextRunner
import java.io.IOException
import java.time.Duration
import java.util.concurrent.atomic.AtomicInteger
import java.util.function.Supplier

/** `@Retryable` on functions that return a Kotlin `Flow`, in virtual time: a `Flow` is retried as a `Flux` is. */
@OptIn(ExperimentalCoroutinesApi::class)
class FlowRetryableTests {

	private val runner = ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(AopAutoConfiguration::class.java, RetryAutoConfiguration::class.java))
		.withBean(VirtualTime::class.java, Supplier { VirtualTime() })
		.withBean(Probe::class.java)
		.withBean(Prices::class.java)

	@Test
	fun aFlowIsCollectedAgainForEachAttemptAndNothingRunsBeforeItIsCollected() {
		runner.run { context ->
			val prices = context.getBean(Prices::class.java)
			val probe = context.getBean(Probe::class.java)
			val time = context.getBean(VirtualTime::class.java)
			probe.failuresLeft.set(2)
			val flow = prices.all()
			assertThat(probe.collections).hasValue(0)
			runTest {
				val collected = async { flow.toList() }
				runCurrent()
				assertThat(probe.collections).hasValue(1)
				time.advance(Duration.ofMillis(100))
				runCurrent()
				assertThat(probe.collections).hasValue(2)
				time.advance(Duration.ofMillis(200))
				runCurrent()
				assertThat(collected.await()).containsExactly(1, 2, 3)
			}
			assertThat(probe.collections).hasValue(3)
			val metrics = context.getBean(RetryRegistry::class.java).template("Prices.all").metrics
			assertThat(metrics.successfulCallsWithRetry).isEqualTo(1)
			assertThat(metrics.attempts).isEqualTo(3)
		}
	}

	@Test
	fun anExhaustedFlowRecoversThroughARecoverMethodReturningAFlow() {
		runner.run { context ->
			val prices = context.getBean(Prices::class.java)
			val probe = context.getBean(Probe::class.java)
			val time = context.getBean(VirtualTime::class.java)
			probe.failuresLeft.set(10)
			runTest {
				val collected = async { prices.inCurrency("EUR").toList() }
				runCurrent()
				time.advance(Duration.ofMillis(100))
				runCurrent()
				time.advance(Duration.ofMillis(200))
				runCurrent()
				assertThat(collected.await()).containsExactly(0)
			}
			assertThat(probe.collections).hasValue(3)
			assertThat(context.getBean(RetryRegistry::class.java).template("Prices.inCurrency").metrics.recoveries)
				.isEqualTo(1)
		}
	}

	@Test
	fun aSuspendFunctionReturningAFlowIsReinvokedPerAttempt() {
		runner.run { context ->
			val prices = context.getBean(Prices::class.java)
			val probe = context.getBean(Probe::class.java)
			val time = context.getBean(VirtualTime::class.java)
			probe.failuresLeft.set(1)
			runTest {
				val collected = async { prices.latest().toList() }
				runCurrent()
				assertThat(probe.invocations).hasValue(1)
				time.advance(Duration.ofMillis(100))
				runCurrent()
				assertThat(collected.await()).containsExactly(7, 8)
			}
			assertThat(probe.invocations).hasValue(2)
		}
	}

	/** What the bean saw; apart from it because a proxy's Kotlin properties (final getters) do not reach the target. */
	class Probe {

		val collections = AtomicInteger()

		val invocations = AtomicInteger()

		val failuresLeft = AtomicInteger()

	}

	open class Prices(private val probe: Probe) {

		@Retryable
		open fun all(): Flow<Int> = flow {
			probe.collections.incrementAndGet()
			if (probe.failuresLeft.getAndDecrement() > 0) {
				throw IOException("down")
			}
			emit(1)
			emit(2)
			emit(3)
		}

		@Retryable
		open fun inCurrency(currency: String): Flow<Int> = flow {
			probe.collections.incrementAndGet()
			throw IOException("down")
		}

		@Recover
		open fun cached(failure: IOException, currency: String): Flow<Int> = flowOf(0)

		@Retryable
		open suspend fun latest(): Flow<Int> {
			probe.invocations.incrementAndGet()
			if (probe.failuresLeft.getAndDecrement() > 0) {
				throw IOException("down")
			}
			return flowOf(7, 8)
		}

	}

}
