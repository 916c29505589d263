package dev.retrykit.spring.boot.aop

import dev.retrykit.RetryRegistry
import dev.retrykit.VirtualTime
import dev.retrykit.annotation.Retryable
import dev.retrykit.spring.boot.autoconfigure.RetryAutoConfiguration
import dev.retrykit.spring.boot.autoconfigure.RetryFailureAnalyzer
import kotlinx.coroutines.CompletableDeferred
import kotlinx.coroutines.ExperimentalCoroutinesApi
import kotlinx.coroutines.async
import kotlinx.coroutines.flow.Flow
import kotlinx.coroutines.flow.flowOf
import kotlinx.coroutines.launch
import kotlinx.coroutines.test.TestScope
import kotlinx.coroutines.test.runCurrent
import kotlinx.coroutines.test.runTest
import org.assertj.core.api.Assertions.assertThat
import org.junit.jupiter.api.Test
import org.springframework.boot.autoconfigure.AutoConfigurations
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration
import org.springframework.boot.test.context.runner.ApplicationContextRunner
import java.io.IOException
import java.time.Duration
import java.util.concurrent.CopyOnWriteArrayList
import java.util.concurrent.atomic.AtomicInteger
import java.util.function.Supplier
import kotlin.coroutines.cancellation.CancellationException

/**
 * `@Retryable` `suspend fun`s of a hedging instance, in virtual time: each copy is another invocation
 * of the function, whose coroutine runs alongside the others'; the first answer is returned and the
 * losing coroutines are cancelled. A function returning a `Flow` on a hedging instance fails startup.
 */
@OptIn(ExperimentalCoroutinesApi::class)
class SuspendHedgingTests {

	private val runner = ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(AopAutoConfiguration::class.java, RetryAutoConfiguration::class.java))
		.withBean(VirtualTime::class.java, Supplier { VirtualTime() })
		.withPropertyValues("retry.instances.search.max-attempts=3", "retry.instances.search.hedging.enabled=true",
			"retry.instances.search.hedging.delay=10ms")

	@Test
	fun aCopyStartsAfterTheDelayTheFirstAnswerIsReturnedAndTheLosingCoroutineIsCancelled() {
		runner.withBean(Probe::class.java).withBean(Search::class.java).run { context ->
			val search = context.getBean(Search::class.java)
			val probe = context.getBean(Probe::class.java)
			val time = context.getBean(VirtualTime::class.java)
			runTest {
				val result = async { search.find("q") }
				runCurrent()
				assertThat(probe.answers).hasSize(1)
				advance(time, Duration.ofMillis(10).minusNanos(1))
				assertThat(probe.answers).hasSize(1)
				advance(time, Duration.ofNanos(1))
				assertThat(probe.answers).hasSize(2)

				probe.answers[1].complete("second")
				runCurrent()

				assertThat(result.await()).isEqualTo("second")
				assertThat(probe.cancelled).containsExactly(1)
				advance(time, Duration.ofSeconds(1))
			}
			assertThat(probe.answers).hasSize(2)
			val metrics = context.getBean(RetryRegistry::class.java).template("search").metrics
			assertThat(metrics.hedgesStarted).isEqualTo(1)
			assertThat(metrics.hedgesWon).isEqualTo(1)
		}
	}

	@Test
	fun aFailedCopyStartsTheNextAtOnceAndWhenEveryCopyFailedTheLastFailureIsThrown() {
		runner.withBean(Probe::class.java).withBean(Search::class.java).run { context ->
			val search = context.getBean(Search::class.java)
			val probe = context.getBean(Probe::class.java)
			runTest {
				val result = async { runCatching { search.find("q") } }
				runCurrent()
				probe.answers[0].completeExceptionally(IOException("first down"))
				runCurrent()
				assertThat(probe.answers).hasSize(2)
				probe.answers[1].completeExceptionally(IOException("second down"))
				runCurrent()
				assertThat(probe.answers).hasSize(3)
				probe.answers[2].completeExceptionally(IOException("third down"))
				runCurrent()
				val failure = result.await().exceptionOrNull()
				// With assertions on, kotlinx.coroutines' stack trace recovery may hand over a copy with the cause.
				assertThat(if (failure is IOException && failure.cause == null) failure else failure!!.cause)
					.isInstanceOf(IOException::class.java).hasMessage("third down")
			}
			assertThat(probe.cancelled).isEmpty()
		}
	}

	@Test
	fun cancellingTheCallerCancelsEveryCopysCoroutine() {
		runner.withBean(Probe::class.java).withBean(Search::class.java).run { context ->
			val search = context.getBean(Search::class.java)
			val probe = context.getBean(Probe::class.java)
			val time = context.getBean(VirtualTime::class.java)
			runTest {
				val call = launch { search.find("q") }
				runCurrent()
				advance(time, Duration.ofMillis(10))
				assertThat(probe.answers).hasSize(2)

				call.cancel()
				runCurrent()

				assertThat(probe.cancelled).containsExactlyInAnyOrder(1, 2)
				advance(time, Duration.ofSeconds(1))
			}
			assertThat(probe.answers).hasSize(2)
		}
	}

	@Test
	fun aFlowFunctionOfAHedgingInstanceFailsStartup() {
		runner.withBean(Streaming::class.java).run { context ->
			val analysis = RetryFailureAnalyzer().analyze(context.startupFailure!!)!!
			assertThat(analysis.description).contains("Streaming.results(String)", "Kotlin Flow", "'search' hedges")
			assertThat(analysis.action).contains("suspend function", "retry.instances.search.hedging.enabled")
		}
	}

	private fun TestScope.advance(time: VirtualTime, duration: Duration) {
		time.advance(duration)
		runCurrent()
	}

	/** What the bean saw; apart from it because a proxy's Kotlin properties (final getters) do not reach the target. */
	class Probe {

		val calls = AtomicInteger()

		/** Each copy's answer, completed by the test. */
		val answers: MutableList<CompletableDeferred<String>> = CopyOnWriteArrayList()

		/** The copies (from 1) whose coroutine was cancelled. */
		val cancelled: MutableList<Int> = CopyOnWriteArrayList()

	}

	open class Search(private val probe: Probe) {

		@Retryable("search")
		open suspend fun find(query: String): String {
			val copy = probe.calls.incrementAndGet()
			val answer = CompletableDeferred<String>()
			probe.answers.add(answer)
			try {
				return answer.await()
			}
			catch (ex: CancellationException) {
				probe.cancelled.add(copy)
				throw ex
			}
		}

	}

	open class Streaming {

		@Retryable("search")
		open fun results(query: String): Flow<String> = flowOf(query)

	}

}
