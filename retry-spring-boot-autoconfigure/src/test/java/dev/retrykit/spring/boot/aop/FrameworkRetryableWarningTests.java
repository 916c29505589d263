package dev.retrykit.spring.boot.aop;

import dev.retrykit.VirtualTime;
import dev.retrykit.annotation.Retryable;
import dev.retrykit.spring.boot.autoconfigure.RetryAutoConfiguration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

import static org.assertj.core.api.Assertions.assertThat;

/** Spring Framework 7's {@code @Retryable} picked by mistake is named at startup, once per place. */
@ExtendWith(OutputCaptureExtension.class)
class FrameworkRetryableWarningTests {

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class, RetryAutoConfiguration.class))
		.withBean(VirtualTime.class, VirtualTime::new);

	@Test
	void aMethodWithSpringFrameworksRetryableIsNamedWithTheImportToUse(CapturedOutput output) {
		this.runner.withBean(Inventory.class, Inventory::new).run(context -> {
			assertThat(context).hasNotFailed();
			String warning = Inventory.class.getName() + ".stock is annotated with Spring Framework's "
					+ "@org.springframework.resilience.annotation.Retryable, not retrykit's";
			assertThat(output).contains(warning).contains("import dev.retrykit.annotation.Retryable instead");
			assertThat(output.toString().split(java.util.regex.Pattern.quote(warning), -1)).hasSize(2);
			assertThat(output).doesNotContain(Inventory.class.getName() + ".price is annotated");
		});
	}

	@Test
	void aTypeWithSpringFrameworksRetryableIsNamedOnce(CapturedOutput output) {
		this.runner.withBean(Pricing.class, Pricing::new).run(context -> {
			String warning = Pricing.class.getName() + " is annotated with Spring Framework's";
			assertThat(output.toString().split(java.util.regex.Pattern.quote(warning), -1)).hasSize(2);
		});
	}

	@Test
	void retrykitsOwnAnnotationAloneLogsNoSuchWarning(CapturedOutput output) {
		this.runner.withBean(Shipping.class, Shipping::new).run(context -> {
			assertThat(context).hasNotFailed();
			assertThat(output).doesNotContain("is annotated with Spring Framework's");
		});
	}

	static class Inventory {

		@org.springframework.resilience.annotation.Retryable
		public String stock(String sku) {
			return sku;
		}

		@Retryable("inventory")
		public String price(String sku) {
			return sku;
		}

	}

	@org.springframework.resilience.annotation.Retryable
	static class Pricing {

		public String price(String sku) {
			return sku;
		}

		public String currency() {
			return "EUR";
		}

	}

	static class Shipping {

		@Retryable("shipping")
		public String ship(String order) {
			return order;
		}

	}

}
