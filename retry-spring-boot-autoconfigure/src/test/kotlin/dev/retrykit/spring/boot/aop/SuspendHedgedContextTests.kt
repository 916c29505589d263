package dev.retrykit.spring.boot.aop

import dev.retrykit.RetryTemplate
import dev.retrykit.VirtualTime
import dev.retrykit.annotation.Retryable
import dev.retrykit.spring.boot.autoconfigure.RetryAutoConfiguration
import kotlinx.coroutines.CompletableDeferred
import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.ExperimentalCoroutinesApi
import kotlinx.coroutines.async
import kotlinx.coroutines.delay
import kotlinx.coroutines.test.TestScope
import kotlinx.coroutines.test.advanceUntilIdle
import kotlinx.coroutines.test.runCurrent
import kotlinx.coroutines.test.runTest
import kotlinx.coroutines.withContext
import org.assertj.core.api.Assertions.assertThat
import org.junit.jupiter.api.Test
import org.springframework.boot.autoconfigure.AutoConfigurations
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration
import org.springframework.boot.test.context.runner.ApplicationContextRunner
import java.io.IOException
import java.time.Duration
import java.util.concurrent.CopyOnWriteArrayList
import java.util.function.Supplier

/**
 * Inside a `@Retryable` `suspend fun`, `RetryTemplate.currentContext()` is the attempt's own context (a hedged
 * call's copy: its retry count and `retry.hedged`) wherever the coroutine runs: when it starts on its
 * dispatcher, after it resumes from a suspension, and on another dispatcher it switches to. In virtual time.
 */
@OptIn(ExperimentalCoroutinesApi::class)
class SuspendHedgedContextTests {

	private val runner = ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(AopAutoConfiguration::class.java, RetryAutoConfiguration::class.java))
		.withBean(VirtualTime::class.java, Supplier { VirtualTime() })
		.withPropertyValues("retry.instances.search.max-attempts=3", "retry.instances.search.hedging.enabled=true",
			"retry.instances.search.hedging.delay=10ms", "retry.instances.plain.max-attempts=3",
			"retry.instances.plain.backoff.type=fixed", "retry.instances.plain.backoff.delay=1ms",
			"retry.instances.plain.backoff.jitter=0")

	@Test
	fun eachCopyReadsItsOwnContextAfterItResumesAndOnAnotherDispatcher() {
		runner.withBean(Probe::class.java).withBean(Search::class.java).run { context ->
			val search = context.getBean(Search::class.java)
			val probe = context.getBean(Probe::class.java)
			val time = context.getBean(VirtualTime::class.java)
			runTest {
				val result = async { search.find("q") }
				runCurrent()
				advance(time, Duration.ofMillis(10))
				assertThat(probe.gates).hasSize(2)

				probe.gates[1].complete(Unit)
				runCurrent()
				assertThat(result.await()).isEqualTo("copy 2")
				probe.gates[0].complete(Unit)
				runCurrent()
			}
			assertThat(probe.seen).contains(
				"copy 1 at start: 1 false",
				"copy 2 at start: 2 true",
				"copy 2 after resume: 2 true",
				"copy 2 after delay: 2 true",
				"copy 2 on another dispatcher: 2 true",
				"copy 2 back: 2 true")
		}
	}

	@Test
	fun aRetriedAttemptReadsItsContextAfterItResumes() {
		runner.withBean(Probe::class.java).withBean(Plain::class.java).run { context ->
			val plain = context.getBean(Plain::class.java)
			val probe = context.getBean(Probe::class.java)
			val time = context.getBean(VirtualTime::class.java)
			runTest {
				val result = async { plain.find("q") }
				repeat(3) {
					advanceUntilIdle()
					time.advance(Duration.ofMillis(1))
				}
				advanceUntilIdle()
				assertThat(runCatching { result.await() }.getOrElse { it.toString() }).isEqualTo("attempt 2")
			}
			assertThat(probe.seen).containsExactly("attempt 1 after delay: 1", "attempt 2 after delay: 2")
		}
	}

	private fun TestScope.advance(time: VirtualTime, duration: Duration) {
		time.advance(duration)
		runCurrent()
	}

	/** What the bean saw; apart from it because a proxy's Kotlin properties (final getters) do not reach the target. */
	class Probe {

		val gates: MutableList<CompletableDeferred<Unit>> = CopyOnWriteArrayList()

		val seen: MutableList<String> = CopyOnWriteArrayList()

	}

	open class Search(private val probe: Probe) {

		@Retryable("search")
		open suspend fun find(query: String): String {
			val copy = current()
			probe.seen.add("copy ${copy.substringBefore(' ')} at start: $copy")
			val gate = CompletableDeferred<Unit>()
			probe.gates.add(gate)
			gate.await()
			probe.seen.add("copy ${copy.substringBefore(' ')} after resume: ${current()}")
			delay(5)
			probe.seen.add("copy ${copy.substringBefore(' ')} after delay: ${current()}")
			val elsewhere = withContext(Dispatchers.Default) { current() }
			probe.seen.add("copy ${copy.substringBefore(' ')} on another dispatcher: $elsewhere")
			probe.seen.add("copy ${copy.substringBefore(' ')} back: ${current()}")
			return "copy ${copy.substringBefore(' ')}"
		}

		private fun current(): String {
			val context = RetryTemplate.currentContext() ?: return "none"
			return "${context.retryCount + 1} ${context.getAttribute("retry.hedged") == true}"
		}

	}

	open class Plain(private val probe: Probe) {

		@Retryable("plain")
		open suspend fun find(query: String): String {
			delay(5)
			val attempt = (RetryTemplate.currentContext()?.retryCount ?: -2) + 1
			probe.seen.add("attempt $attempt after delay: $attempt")
			if (attempt < 2) {
				throw IOException("down")
			}
			return "attempt $attempt"
		}

	}

}
