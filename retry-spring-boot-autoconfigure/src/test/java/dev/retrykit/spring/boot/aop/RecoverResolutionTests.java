package dev.retrykit.spring.boot.aop;

import java.io.FileNotFoundException;
import java.io.IOException;

import dev.retrykit.VirtualTime;
import dev.retrykit.annotation.Recover;
import dev.retrykit.annotation.Retryable;
import dev.retrykit.spring.boot.autoconfigure.RetryAutoConfiguration;
import dev.retrykit.spring.boot.autoconfigure.RetryFailureAnalyzer;
import dev.retrykit.spi.RetryContextSnapshot;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class RecoverResolutionTests {

	/** Its failures are as a stateful context decoded from a shared store hands them to the recovery. */
	static class RecoveringRecorded {

		@Retryable(maxAttempts = 1)
		public String pay(String order, Throwable failure) {
			throw (RuntimeException) failure;
		}

		@Recover
		public String state(IllegalStateException ex, String order, Throwable failure) {
			return "state " + order + " " + ex.getMessage();
		}

		@Recover
		public String io(IOException ex, String order, Throwable failure) {
			return "io " + order + " " + ex.getMessage();
		}

		@Recover
		public String any(Throwable ex, String order, Throwable failure) {
			return "any " + order;
		}

	}

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class, RetryAutoConfiguration.class))
		.withBean(VirtualTime.class, VirtualTime::new);

	@Test
	void theRecoverMethodWithTheClosestExceptionTypeWins() {
		this.runner.withBean(Recovering.class, Recovering::new).run(context -> {
			Recovering bean = context.getBean(Recovering.class);
			assertThat(bean.fetch("a", new FileNotFoundException("gone"))).isEqualTo("file a gone");
			assertThat(bean.fetch("b", new IOException("io"))).isEqualTo("io b io");
			assertThat(bean.fetch("c", new IllegalStateException("other"))).isEqualTo("any c");
		});
	}

	@Test
	void aFailureRecordedInAnotherReplicaIsRecoveredByTheMethodForTheTypeItRecords() {
		this.runner.withBean(RecoveringRecorded.class, RecoveringRecorded::new).run(context -> {
			RecoveringRecorded bean = context.getBean(RecoveringRecorded.class);
			assertThat(bean.pay("o-1", recorded(IllegalStateException.class, "declined"))).isEqualTo("state o-1 declined");
			assertThat(bean.pay("o-2", recorded(FileNotFoundException.class, "gone"))).isEqualTo("io o-2 gone");
			assertThat(bean.pay("o-3", recorded("com.example.Missing", "x"))).isEqualTo("any o-3");
		});
	}

	@Test
	void aRecordedTypeIsNeverInitialisedTheRecoverMethodGetsTheTypeItDeclares() {
		FORGED_INITIALISED.set(false);
		this.runner.withBean(Narrow.class, Narrow::new).run(context -> {
			Narrow bean = context.getBean(Narrow.class);
			Throwable forged = recorded(Forged.class.getName(), "planted");

			assertThat(bean.call((Exception) forged)).isEqualTo("recovered IOException planted");
			assertThat(FORGED_INITIALISED).as("the forged type's static initializer ran").isFalse();
			assertThat(bean.received()).getCause()
				.isInstanceOfSatisfying(RetryContextSnapshot.RecordedFailure.class,
						cause -> assertThat(cause.getType()).isEqualTo(Forged.class.getName()));
		});
	}

	/** Set by {@link Forged}'s static initializer. */
	static final java.util.concurrent.atomic.AtomicBoolean FORGED_INITIALISED = new java.util.concurrent.atomic.AtomicBoolean();

	/** A type a shared store's entry may name: an IOException whose static initializer has an effect. */
	public static class Forged extends IOException {

		static {
			FORGED_INITIALISED.set(true);
		}

		public Forged(String message) {
			super(message);
		}

	}

	private static Throwable recorded(Class<?> type, String message) {
		return recorded(type.getName(), message);
	}

	private static Throwable recorded(String type, String message) {
		return RetryContextSnapshot.of("pay", 1, true, type, message, 0L, java.util.Map.of()).getLastThrowable();
	}

	@Test
	void aRecoverMethodMayTakeNoParameters() {
		this.runner.withBean(Recovering.class, Recovering::new)
			.run(context -> assertThat(context.getBean(Recovering.class).count(new IOException())).isEqualTo(-1));
	}

	@Test
	void recoverPicksARecoverMethodByName() {
		this.runner.withBean(Recovering.class, Recovering::new)
			.run(context -> assertThat(context.getBean(Recovering.class).explicit("x")).isEqualTo("explicit x"));
	}

	@Test
	void noRecoveryKeepsAMethodUnrecoveredBesideOneThatARecoverMethodFits() {
		this.runner.withBean(Catalog.class, Catalog::new).run(context -> {
			Catalog bean = context.getBean(Catalog.class);
			assertThat(bean.price("a")).isEqualTo("listed a");
			assertThatThrownBy(() -> bean.stock("b")).isInstanceOf(IOException.class).hasMessage("stock b");
			assertThat(bean.stockCalls()).isEqualTo(3);
		});
	}

	@Test
	void aRecoverMethodThatFitsOnlyAMethodWithNoRecoveryFailsStartup() {
		this.runner.withBean(UselessRecover.class, UselessRecover::new).run(context -> {
			FailureAnalysis analysis = new RetryFailureAnalyzer().analyze(context.getStartupFailure());
			assertThat(analysis.getDescription()).contains("listed(IOException, String)", "fits no @Retryable method",
					"NO_RECOVERY");
		});
	}

	@Test
	void aFailureNoRecoverMethodAcceptsIsRethrown() {
		this.runner.withBean(Narrow.class, Narrow::new).run(context -> {
			Narrow bean = context.getBean(Narrow.class);
			assertThat(bean.call(new IOException())).isEqualTo("recovered");
			assertThatThrownBy(() -> bean.call(new IllegalStateException("other"))).hasMessage("other");
		});
	}

	@Test
	void aNamedRecoverMethodThatDoesNotExistFailsStartupWithTheCandidates() {
		this.runner.withBean(MissingRecover.class, MissingRecover::new).run(context -> {
			FailureAnalysis analysis = new RetryFailureAnalyzer().analyze(context.getStartupFailure());
			assertThat(analysis.getDescription()).contains("MissingRecover.call(String)",
					"no @Recover method named 'fallbak' exists");
			assertThat(analysis.getAction()).contains("candidates: [fallback[IOException, String]]");
		});
	}

	@Test
	void aNamedRecoverMethodThatDoesNotFitFailsStartup() {
		this.runner.withBean(UnfitRecover.class, UnfitRecover::new).run(context -> {
			FailureAnalysis analysis = new RetryFailureAnalyzer().analyze(context.getStartupFailure());
			assertThat(analysis.getDescription()).contains("UnfitRecover.call(String)",
					"the @Recover method(s) named 'fallback' do not fit it: [fallback[Integer]]");
			assertThat(analysis.getAction()).contains("returns String", "[String]");
		});
	}

	@Test
	void twoRecoverMethodsThatFitEquallyWellFailStartup() {
		this.runner.withBean(AmbiguousRecover.class, AmbiguousRecover::new).run(context -> {
			FailureAnalysis analysis = new RetryFailureAnalyzer().analyze(context.getStartupFailure());
			assertThat(analysis.getDescription()).contains("AmbiguousRecover.call(String)", "fit it equally well",
					"one[IOException, String]", "two[IOException]");
		});
	}

	@Test
	void anInvalidInlineAttributeFailsStartupNamingTheMethod() {
		this.runner.withBean(InvalidInline.class, InvalidInline::new).run(context -> {
			FailureAnalysis analysis = new RetryFailureAnalyzer().analyze(context.getStartupFailure());
			assertThat(analysis.getDescription()).contains("InvalidInline.call()", "invalid maxAttempts (0)",
					"must be 1 or greater, or -1 for unlimited");
		});
	}

	public static class Recovering {

		@Retryable
		public String fetch(String id, Exception failure) throws Exception {
			throw failure;
		}

		@Recover
		public String recoverFile(FileNotFoundException failure, String id, Exception original) {
			return "file " + id + " " + failure.getMessage();
		}

		@Recover
		public String recoverIo(IOException failure, String id, Exception original) {
			return "io " + id + " " + failure.getMessage();
		}

		@Recover
		public String recoverAny(String id, Exception original) {
			return "any " + id;
		}

		@Retryable
		public int count(Exception failure) throws Exception {
			throw failure;
		}

		@Recover
		public int noParameters() {
			return -1;
		}

		@Retryable(recover = "special")
		public String explicit(String id) {
			throw new IllegalStateException();
		}

		@Recover
		public String special(RuntimeException failure, String id) {
			return "explicit " + id;
		}

	}

	/** {@code listed} fits both methods; {@code stock} says it has no recovery. */
	public static class Catalog {

		private int stockCalls;

		@Retryable(maxAttempts = 3)
		public String price(String sku) throws IOException {
			throw new IOException("price " + sku);
		}

		@Retryable(maxAttempts = 3, recover = Retryable.NO_RECOVERY)
		public String stock(String sku) throws IOException {
			this.stockCalls++;
			throw new IOException("stock " + sku);
		}

		@Recover
		public String listed(IOException failure, String sku) {
			return "listed " + sku;
		}

		public int stockCalls() {
			return this.stockCalls;
		}

	}

	public static class UselessRecover {

		@Retryable(recover = Retryable.NO_RECOVERY)
		public String stock(String sku) throws IOException {
			throw new IOException(sku);
		}

		@Recover
		public String listed(IOException failure, String sku) {
			return "listed " + sku;
		}

	}

	public static class Narrow {

		private volatile Throwable received;

		public Throwable received() {
			return this.received;
		}

		@Retryable
		public String call(Exception failure) throws Exception {
			throw failure;
		}

		@Recover
		public String recover(IOException failure, Exception original) {
			this.received = failure;
			return "recovered" + ((failure.getMessage() != null) ? " " + failure.getClass().getSimpleName() + " "
					+ failure.getMessage() : "");
		}

	}

	public static class MissingRecover {

		@Retryable(recover = "fallbak")
		public String call(String id) {
			return id;
		}

		@Recover
		public String fallback(IOException failure, String id) {
			return id;
		}

	}

	public static class UnfitRecover {

		@Retryable(recover = "fallback")
		public String call(String id) {
			return id;
		}

		@Recover
		public String fallback(Integer id) {
			return "x";
		}

	}

	public static class AmbiguousRecover {

		@Retryable
		public String call(String id) {
			return id;
		}

		@Recover
		public String one(IOException failure, String id) {
			return id;
		}

		@Recover
		public String two(IOException failure) {
			return "x";
		}

	}

	public static class InvalidInline {

		@Retryable(maxAttempts = 0)
		public String call() {
			return "x";
		}

	}

}
