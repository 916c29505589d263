package dev.retrykit.spring.boot.aop

import dev.retrykit.RetryEventType
import dev.retrykit.RetryRegistry
import dev.retrykit.VirtualTime
import dev.retrykit.annotation.Failback
import dev.retrykit.annotation.Recover
import dev.retrykit.annotation.Retryable
import dev.retrykit.spring.boot.autoconfigure.RetryAutoConfiguration
import dev.retrykit.spring.boot.autoconfigure.RetryFailureAnalyzer
import dev.retrykit.spring.boot.autoconfigure.metrics.RetryMetricsAutoConfiguration
import io.micrometer.core.instrument.MeterRegistry
import kotlinx.coroutines.CompletableDeferred
import kotlinx.coroutines.CoroutineScope
import kotlinx.coroutines.ExperimentalCoroutinesApi
import kotlinx.coroutines.async
import kotlinx.coroutines.launch
import kotlinx.coroutines.test.TestScope
import kotlinx.coroutines.test.runCurrent
import kotlinx.coroutines.test.runTest
import org.assertj.core.api.Assertions.assertThat
import org.junit.jupiter.api.Test
import org.springframework.boot.autoconfigure.AutoConfigurations
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration
import org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration
import org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration
import org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration
import org.springframework.boot.test.context.runner.ApplicationContextRunner
import org.springframework.context.ApplicationContext
import java.io.IOException
import java.time.Duration
import java.util.concurrent.CopyOnWriteArrayList
import java.util.concurrent.atomic.AtomicInteger
import java.util.function.Supplier

/**
 * `@Retryable` on `suspend fun`s, in virtual time: the retry's waits run on the [VirtualTime] bean
 * (advanced by hand), the coroutines on `runTest`'s scheduler (run by `runCurrent()`); nothing sleeps.
 */
@OptIn(ExperimentalCoroutinesApi::class)
class SuspendRetryableTests {

	private val runner = ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(AopAutoConfiguration::class.java, RetryAutoConfiguration::class.java,
			MetricsAutoConfiguration::class.java, CompositeMeterRegistryAutoConfiguration::class.java,
			SimpleMetricsExportAutoConfiguration::class.java, RetryMetricsAutoConfiguration::class.java))
		.withBean(VirtualTime::class.java, Supplier { VirtualTime() })
		.withBean(Probe::class.java)
		.withBean(Inventory::class.java)

	@Test
	fun eachAttemptReinvokesTheFunctionAndTheBackoffWaitsOnTheScheduler() {
		runner.run { context ->
			val inventory = context.getBean(Inventory::class.java)
			val probe = context.getBean(Probe::class.java)
			val time = context.getBean(VirtualTime::class.java)
			probe.failuresLeft.set(2)
			runTest {
				val stock = async { inventory.stock("sku-1") }
				runCurrent()
				assertThat(probe.calls).hasValue(1)
				advance(time, Duration.ofMillis(99))
				assertThat(probe.calls).hasValue(1)
				advance(time, Duration.ofMillis(1))
				assertThat(probe.calls).hasValue(2)
				advance(time, Duration.ofMillis(200))
				assertThat(stock.await()).isEqualTo(42)
			}
			assertThat(probe.calls).hasValue(3)
			assertThat(probe.skus).containsExactly("sku-1", "sku-1", "sku-1")
			assertThat(time.elapsed()).isEqualTo(Duration.ofMillis(300))
			assertThat(time.sleeps()).isEmpty()
			val events = metrics(context, "Inventory.stock").recentEvents
			assertThat(events.filter { it.type() == RetryEventType.RETRY }.map { it.delay() })
				.containsExactly(Duration.ofMillis(100), Duration.ofMillis(200))
		}
	}

	@Test
	fun exhaustionRethrowsTheLastExceptionUnchanged() {
		runner.run { context ->
			val inventory = context.getBean(Inventory::class.java)
			val probe = context.getBean(Probe::class.java)
			val time = context.getBean(VirtualTime::class.java)
			probe.failuresLeft.set(10)
			runTest {
				val stock = async { runCatching { inventory.stock("sku-2") } }
				runCurrent()
				retryUntilDone(time)
				val failure = stock.await().exceptionOrNull()
				assertThat(failure).isExactlyInstanceOf(IOException::class.java).hasMessage("down 3")
				// The last attempt's own exception; with assertions on, kotlinx.coroutines' stack trace recovery
				// (its debug mode, as for any suspend call) hands the caller a copy whose cause is that exception.
				val last = probe.thrown.last()
				assertThat(if (failure === last) last else failure!!.cause).isSameAs(last)
			}
			assertThat(probe.calls).hasValue(3)
		}
	}

	@Test
	fun callsAndAttemptsAreMeteredAsForASynchronousCall() {
		runner.run { context ->
			val inventory = context.getBean(Inventory::class.java)
			val probe = context.getBean(Probe::class.java)
			val time = context.getBean(VirtualTime::class.java)
			runTest {
				probe.failuresLeft.set(1)
				val first = async { inventory.stock("a") }
				runCurrent()
				advance(time, Duration.ofMillis(100))
				first.await()
				val second = async { inventory.stock("b") }
				runCurrent()
				second.await()
			}
			val meters = context.getBean(MeterRegistry::class.java)
			fun calls(kind: String) =
				meters.get("retry.calls").tag("name", "Inventory.stock").tag("kind", kind).functionCounter().count()
			assertThat(calls("successful_with_retry")).isEqualTo(1.0)
			assertThat(calls("successful_without_retry")).isEqualTo(1.0)
			assertThat(calls("failed_with_retry")).isZero()
			assertThat(meters.get("retry.attempts").tag("name", "Inventory.stock").functionCounter().count()).isEqualTo(3.0)
		}
	}

	@Test
	fun aSuspendRecoverMethodMatchesByTheKotlinSignatureAndIsAwaited() {
		runner.run { context ->
			val inventory = context.getBean(Inventory::class.java)
			val probe = context.getBean(Probe::class.java)
			val time = context.getBean(VirtualTime::class.java)
			probe.failuresLeft.set(10)
			runTest {
				val reserved = async { inventory.reserve("sku-3", 2) }
				runCurrent()
				retryUntilDone(time)
				assertThat(reserved.await()).isEqualTo("fallback sku-3 x2 after down 3")
			}
			assertThat(metrics(context, "Inventory.reserve").recoveries).isEqualTo(1)
		}
	}

	@Test
	fun aPlainRecoverMethodAlsoFitsASuspendFunction() {
		runner.run { context ->
			val inventory = context.getBean(Inventory::class.java)
			val probe = context.getBean(Probe::class.java)
			val time = context.getBean(VirtualTime::class.java)
			probe.failuresLeft.set(10)
			runTest {
				val price = async { inventory.price("sku-4", "EUR") }
				runCurrent()
				retryUntilDone(time)
				assertThat(price.await()).isEqualTo(-1)
			}
		}
	}

	@Test
	fun cancellingTheCallerCancelsThePendingRetry() {
		runner.run { context ->
			val inventory = context.getBean(Inventory::class.java)
			val probe = context.getBean(Probe::class.java)
			val time = context.getBean(VirtualTime::class.java)
			probe.failuresLeft.set(10)
			runTest {
				val call = launch { inventory.stock("sku-5") }
				runCurrent()
				assertThat(probe.calls).hasValue(1)
				assertThat(time.pendingTasks()).isEqualTo(1)
				call.cancel()
				runCurrent()
				assertThat(time.pendingTasks()).isZero()
				advance(time, Duration.ofSeconds(10))
			}
			assertThat(probe.calls).hasValue(1)
		}
	}

	@Test
	fun cancellingTheCallerCancelsTheAttemptInFlight() {
		runner.run { context ->
			val inventory = context.getBean(Inventory::class.java)
			val probe = context.getBean(Probe::class.java)
			val time = context.getBean(VirtualTime::class.java)
			runTest {
				val call = launch { inventory.hang() }
				runCurrent()
				assertThat(probe.hanging).hasValue(1)
				call.cancel()
				runCurrent()
				advance(time, Duration.ofSeconds(10))
			}
			assertThat(probe.cancelled).hasValue(1)
			assertThat(probe.hanging).hasValue(1)
		}
	}

	@Test
	fun statefulRetryOfASuspendFunctionFailsStartup() {
		runner.withBean(StatefulInventory::class.java).run { context ->
			assertThat(RetryFailureAnalyzer().analyze(context.startupFailure!!)!!.description)
				.contains("StatefulInventory.stock(String)", "stateful retry needs a synchronous method",
					"Kotlin suspend function")
		}
	}

	@Test
	fun aSuspendFailbackMethodFailsStartup() {
		runner.withBean(SuspendFailback::class.java).run { context ->
			assertThat(RetryFailureAnalyzer().analyze(context.startupFailure!!)!!.description)
				.contains("SuspendFailback.notify(String)", "it is a Kotlin suspend function")
		}
	}

	@Test
	fun aNamedRecoverMethodThatDoesNotFitIsReportedWithItsKotlinSignature() {
		runner.withBean(MisfitRecover::class.java).run { context ->
			assertThat(RetryFailureAnalyzer().analyze(context.startupFailure!!)!!.description)
				.contains("MisfitRecover.stock(String)", "do not fit it: [byNumber[IOException, int]]")
		}
	}

	@Test
	fun aSuspendRecoverMethodDoesNotFitABlockingMethod() {
		runner.withBean(SuspendRecoverForBlocking::class.java).run { context ->
			assertThat(RetryFailureAnalyzer().analyze(context.startupFailure!!)!!.description)
				.contains("SuspendRecoverForBlocking.stock(String)", "do not fit it: [fallback[IOException, String]]")
		}
	}

	private fun TestScope.advance(time: VirtualTime, duration: Duration) {
		time.advance(duration)
		runCurrent()
	}

	/** Runs each pending retry at its time, and the coroutines it resumes, until no retry is pending. */
	private fun TestScope.retryUntilDone(time: VirtualTime) {
		runCurrent()
		repeat(100) {
			val next = time.untilNextTask() ?: return
			advance(time, next)
		}
		throw AssertionError("Retries still pending after 100 steps")
	}

	private fun metrics(context: ApplicationContext, name: String) =
		context.getBean(RetryRegistry::class.java).template(name).metrics

	/** What the bean saw; apart from it because a proxy's Kotlin properties (final getters) do not reach the target. */
	class Probe {

		val calls = AtomicInteger()

		val failuresLeft = AtomicInteger()

		val skus: MutableList<String> = CopyOnWriteArrayList()

		val hanging = AtomicInteger()

		val cancelled = AtomicInteger()

		val thrown: MutableList<Throwable> = CopyOnWriteArrayList()

	}

	open class Inventory(private val probe: Probe) {

		@Retryable
		open suspend fun stock(sku: String): Int {
			probe.skus.add(sku)
			failIfAsked()
			return 42
		}

		@Retryable(recover = "fallback")
		open suspend fun reserve(sku: String, quantity: Int): String {
			failIfAsked()
			return "reserved"
		}

		@Recover
		open suspend fun fallback(failure: IOException, sku: String, quantity: Int): String =
			"fallback $sku x$quantity after ${failure.message}"

		@Retryable(recover = "noPrice")
		open suspend fun price(sku: String, currency: String): Int {
			failIfAsked()
			return 10
		}

		@Recover
		open fun noPrice(failure: IOException, sku: String, currency: String): Int = -1

		@Retryable
		open suspend fun hang(): String {
			probe.hanging.incrementAndGet()
			try {
				return CompletableDeferred<String>().await()
			}
			finally {
				probe.cancelled.incrementAndGet()
			}
		}

		private fun failIfAsked() {
			val call = probe.calls.incrementAndGet()
			if (probe.failuresLeft.getAndDecrement() > 0) {
				throw IOException("down $call").also { probe.thrown.add(it) }
			}
		}

	}

	open class StatefulInventory {

		@Retryable(stateful = true)
		open suspend fun stock(sku: String): Int = 1

	}

	open class SuspendFailback {

		@Failback("notify")
		open suspend fun notify(orderId: String) {
		}

	}

	open class MisfitRecover {

		@Retryable(recover = "byNumber")
		open suspend fun stock(sku: String): Int = 1

		@Recover
		open suspend fun byNumber(failure: IOException, sku: Int): Int = 0

	}

	open class SuspendRecoverForBlocking {

		@Retryable(recover = "fallback")
		open fun stock(sku: String): String = "1"

		@Recover
		open suspend fun fallback(failure: IOException, sku: String): String = "0"

	}

}
