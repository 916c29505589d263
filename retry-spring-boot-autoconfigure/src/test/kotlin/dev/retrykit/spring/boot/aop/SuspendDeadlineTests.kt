package dev.retrykit.spring.boot.aop

import dev.retrykit.Deadline
import dev.retrykit.RetryListener
import dev.retrykit.context.RetryContext
import dev.retrykit.VirtualTime
import dev.retrykit.annotation.Retryable
import dev.retrykit.spring.boot.autoconfigure.RetryAutoConfiguration
import dev.retrykit.spring.boot.http.server.ExhaustionMarker
import dev.retrykit.spring.boot.http.server.ExhaustionRecordingListener
import kotlinx.coroutines.ExperimentalCoroutinesApi
import kotlinx.coroutines.async
import kotlinx.coroutines.reactor.ReactorContext
import kotlinx.coroutines.test.TestScope
import kotlinx.coroutines.test.runCurrent
import kotlinx.coroutines.test.runTest
import kotlinx.coroutines.withContext
import org.assertj.core.api.Assertions.assertThat
import org.junit.jupiter.api.Test
import org.springframework.boot.autoconfigure.AutoConfigurations
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration
import org.springframework.boot.test.context.runner.ApplicationContextRunner
import reactor.util.context.Context
import java.io.IOException
import java.time.Duration
import java.util.concurrent.CopyOnWriteArrayList
import java.util.function.Supplier

/**
 * A `suspend` `@Retryable` function under a [Deadline], in virtual time: the deadline reaches the call from the
 * coroutine's `ReactorContext` element (key `Deadline::class.java`, as a WebFlux handler's coroutine carries the
 * request's) or from the thread that calls it; its attempts run under it and none starts after it. A call that gives
 * up records into the request's `ExhaustionMarker` found the same way.
 */
private fun describe(deadline: Deadline?): String = deadline?.remaining()?.toMillis()?.toString() ?: "none"

@OptIn(ExperimentalCoroutinesApi::class)
class SuspendDeadlineTests {

	private val runner = ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(AopAutoConfiguration::class.java, RetryAutoConfiguration::class.java))
		.withBean(VirtualTime::class.java, Supplier { VirtualTime() })
		.withBean(Leaf::class.java)
		.withBean(OpenedUnder::class.java)
		.withPropertyValues("retry.instances.leaf.max-attempts=3", "retry.instances.leaf.backoff.type=fixed",
			"retry.instances.leaf.backoff.delay=400ms", "retry.instances.leaf.backoff.jitter=0")

	@Test
	fun aDeadlineInTheCoroutinesReactorContextBoundsTheCall() {
		runner.run { context ->
			val leaf = context.getBean(Leaf::class.java)
			val time = context.getBean(VirtualTime::class.java)
			val deadline = Deadline.after(Duration.ofMillis(700), time)
			runTest {
				val call = async {
					runCatching { withContext(ReactorContext(Context.of(Deadline::class.java, deadline))) { leaf.stock() } }
				}
				retryUntilDone(time)
				assertThat(call.getCompleted().exceptionOrNull()).isInstanceOf(IOException::class.java)
			}
			// The call opened under the deadline; its attempts at 0 and 400 ms ran, the third (800 ms) did not.
			assertThat(context.getBean(OpenedUnder::class.java).deadlines).containsExactly("700")
			assertThat(leaf.seen()).hasSize(2)
		}
	}

	@Test
	fun aDeadlineCurrentOnTheCallingThreadBoundsTheCall() {
		runner.run { context ->
			val leaf = context.getBean(Leaf::class.java)
			val time = context.getBean(VirtualTime::class.java)
			Deadline.after(Duration.ofMillis(700), time).enter().use {
				runTest {
					val call = async { runCatching { leaf.stock() } }
					retryUntilDone(time)
					assertThat(call.getCompleted().exceptionOrNull()).isInstanceOf(IOException::class.java)
				}
			}
			assertThat(context.getBean(OpenedUnder::class.java).deadlines).containsExactly("700")
			assertThat(leaf.seen()).containsExactly("700", "300")
		}
	}

	@Test
	fun withoutADeadlineEveryAttemptRuns() {
		runner.run { context ->
			val leaf = context.getBean(Leaf::class.java)
			val time = context.getBean(VirtualTime::class.java)
			runTest {
				val call = async { runCatching { leaf.stock() } }
				retryUntilDone(time)
				assertThat(call.getCompleted().exceptionOrNull()).isInstanceOf(IOException::class.java)
			}
			assertThat(context.getBean(OpenedUnder::class.java).deadlines).containsExactly("none")
			assertThat(leaf.seen()).containsExactly("none", "none", "none")
		}
	}

	@Test
	fun aCallThatGaveUpIsRecordedIntoTheRequestsMarkerInTheReactorContext() {
		runner.withBean(ExhaustionRecordingListener::class.java).run { context ->
			val leaf = context.getBean(Leaf::class.java)
			val time = context.getBean(VirtualTime::class.java)
			val marker = ExhaustionMarker()
			runTest {
				val call = async {
					runCatching { withContext(ReactorContext(Context.of(ExhaustionMarker::class.java, marker))) { leaf.stock() } }
				}
				retryUntilDone(time)
				assertThat(call.getCompleted().exceptionOrNull()).isInstanceOf(IOException::class.java)
			}
			assertThat(marker.exhaustedInstance()).isEqualTo("leaf")
		}
	}

	/** Runs each pending retry at its time, and the coroutines it resumes, until no retry is pending. */
	private fun TestScope.retryUntilDone(time: VirtualTime) {
		runCurrent()
		repeat(100) {
			val next = time.untilNextTask() ?: return
			time.advance(next)
			runCurrent()
		}
		throw AssertionError("Retries still pending after 100 steps")
	}

	/** Records the time left of the deadline each call opens under (what the engine takes as the call's deadline). */
	class OpenedUnder : RetryListener {

		val deadlines: MutableList<String> = CopyOnWriteArrayList()

		override fun open(context: RetryContext): Boolean {
			deadlines.add(describe(Deadline.current()))
			return true
		}

	}

	/** Always fails; records the time left of the deadline each attempt runs under. */
	open class Leaf {

		private val seen: MutableList<String> = CopyOnWriteArrayList()

		open fun seen(): List<String> = seen

		@Retryable("leaf")
		open suspend fun stock(): Int {
			// The function runs on its caller's dispatcher: it sees a deadline of the thread, not of the ReactorContext.
			seen.add(describe(Deadline.current()))
			throw IOException("leaf down")
		}

	}

}
