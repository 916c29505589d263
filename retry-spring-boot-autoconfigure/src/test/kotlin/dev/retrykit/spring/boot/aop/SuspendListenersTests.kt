package dev.retrykit.spring.boot.aop

import dev.retrykit.context.RetryContext
import dev.retrykit.RetryListener
import dev.retrykit.VirtualTime
import dev.retrykit.annotation.Retryable
import dev.retrykit.spring.boot.autoconfigure.RetryAutoConfiguration
import kotlinx.coroutines.ExperimentalCoroutinesApi
import kotlinx.coroutines.async
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

/**
 * The listeners of a `suspend fun` hear its calls with the intercepted invocation: the call starts when
 * Spring's proxy awaits the retried publisher, after the interceptor returned, so the invocation must travel
 * with the call.
 */
@OptIn(ExperimentalCoroutinesApi::class)
class SuspendListenersTests {

	private val runner = ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(AopAutoConfiguration::class.java, RetryAutoConfiguration::class.java))
		.withBean(VirtualTime::class.java, Supplier { VirtualTime() })
		.withBean("auditListener", Heard::class.java, Supplier { Heard() })
		.withBean("metricsListener", Heard::class.java, Supplier { Heard() })
		.withBean(Orders::class.java)

	@Test
	fun theListenersASuspendFunctionNamesHearEachAttemptWithTheInvocation() {
		runner.run { context ->
			val orders = context.getBean(Orders::class.java)
			val time = context.getBean(VirtualTime::class.java)
			runTest {
				val placed = async { orders.place("order-7") }
				runCurrent()
				time.advance(Duration.ofSeconds(1))
				runCurrent()
				assertThat(placed.await()).isEqualTo("placed order-7")
			}
			assertThat(context.getBean("auditListener", Heard::class.java).events).containsExactly(
				"open place[order-7]", "attempt 1 of place[order-7]", "attempt 2 of place[order-7]",
				"close place[order-7]")
			assertThat(context.getBean("metricsListener", Heard::class.java).events).isEmpty()
		}
	}

	class Heard : RetryListener {

		val events: MutableList<String> = CopyOnWriteArrayList()

		override fun open(context: RetryContext): Boolean {
			record("open", context)
			return true
		}

		override fun beforeAttempt(context: RetryContext) = record("attempt ${context.retryCount + 1} of", context)

		override fun close(context: RetryContext, failure: Throwable?) = record("close", context)

		private fun record(event: String, context: RetryContext) {
			val invocation = MethodListeners.invocation(context)
			// A suspend function's last argument is its continuation: left out.
			events.add("$event " + (invocation?.let { it.method.name + it.arguments.dropLast(1) } ?: "-"))
		}

	}

	open class Orders {

		private val calls = AtomicInteger()

		@Retryable(listeners = ["auditListener"])
		open suspend fun place(id: String): String {
			if (calls.incrementAndGet() == 1) {
				throw IOException("down")
			}
			return "placed $id"
		}

	}

}
