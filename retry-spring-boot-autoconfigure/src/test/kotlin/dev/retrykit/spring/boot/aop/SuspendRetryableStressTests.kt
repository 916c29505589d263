package dev.retrykit.spring.boot.aop

import dev.retrykit.RetryRegistry
import dev.retrykit.VirtualTime
import dev.retrykit.annotation.Retryable
import dev.retrykit.spring.boot.autoconfigure.RetryAutoConfiguration
import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.async
import kotlinx.coroutines.runBlocking
import kotlinx.coroutines.withTimeout
import org.assertj.core.api.Assertions.assertThat
import org.junit.jupiter.api.Test
import org.springframework.boot.autoconfigure.AutoConfigurations
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration
import org.springframework.boot.test.context.runner.ApplicationContextRunner
import java.io.IOException
import java.time.Duration
import java.util.concurrent.ConcurrentHashMap
import java.util.concurrent.atomic.AtomicInteger
import java.util.function.Supplier

/**
 * Many suspend calls at once on `Dispatchers.Default` (real threads), half of them cancelled while
 * their retry is pending; the retries' waits run on the [VirtualTime] bean, advanced by this thread.
 * Invariants: every call that was not cancelled succeeds after exactly one retry; a cancelled call
 * never makes another attempt; no retry is left pending; the instance counts every call once.
 */
class SuspendRetryableStressTests {

	private val runner = ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(AopAutoConfiguration::class.java, RetryAutoConfiguration::class.java))
		.withBean(VirtualTime::class.java, Supplier { VirtualTime() })
		.withBean(Attempts::class.java)
		.withBean(Catalog::class.java)

	@Test
	fun concurrentSuspendCallsRetryIndependentlyAndCancelledOnesStop() {
		runner.run { context ->
			val catalog = context.getBean(Catalog::class.java)
			val attempts = context.getBean(Attempts::class.java)
			val time = context.getBean(VirtualTime::class.java)
			val calls = 400
			runBlocking {
				withTimeout(30_000) {
					val results = (0 until calls).map { i -> async(Dispatchers.Default) { catalog.item(i) } }
					// Every first attempt has failed once each call has scheduled its retry.
					while (time.pendingTasks() < calls) {
						Thread.onSpinWait()
					}
					val cancelled = results.filterIndexed { i, _ -> i % 2 == 1 }
					cancelled.forEach { it.cancel() }
					cancelled.forEach { runCatching { it.await() } }
					time.advance(Duration.ofMillis(100))
					val values = results.filterIndexed { i, _ -> i % 2 == 0 }.map { it.await() }
					assertThat(values).containsExactlyElementsOf((0 until calls step 2).map { "item $it" })
				}
			}
			time.advance(Duration.ofSeconds(10))
			assertThat(time.pendingTasks()).isZero()
			(0 until calls).forEach { i -> assertThat(attempts.of(i)).`as`("attempts of call $i").isEqualTo(if (i % 2 == 0) 2 else 1) }
			val metrics = context.getBean(RetryRegistry::class.java).template("Catalog.item").metrics
			assertThat(metrics.successfulCallsWithRetry).isEqualTo(calls / 2L)
			assertThat(metrics.attempts).isEqualTo(calls + calls / 2L)
		}
	}

	class Attempts {

		private val counts = ConcurrentHashMap<Int, AtomicInteger>()

		fun add(id: Int): Int = counts.computeIfAbsent(id) { AtomicInteger() }.incrementAndGet()

		fun of(id: Int): Int = counts[id]?.get() ?: 0

	}

	open class Catalog(private val attempts: Attempts) {

		@Retryable(maxAttempts = 3)
		open suspend fun item(id: Int): String {
			if (attempts.add(id) == 1) {
				throw IOException("down $id")
			}
			return "item $id"
		}

	}

}
