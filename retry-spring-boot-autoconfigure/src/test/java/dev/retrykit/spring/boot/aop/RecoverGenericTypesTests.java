package dev.retrykit.spring.boot.aop;

import java.io.IOException;
import java.util.List;
import java.util.Map;

import dev.retrykit.VirtualTime;
import dev.retrykit.annotation.Recover;
import dev.retrykit.annotation.Retryable;
import dev.retrykit.spring.boot.autoconfigure.RetryAutoConfiguration;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;

class RecoverGenericTypesTests {

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class, RetryAutoConfiguration.class))
		.withBean(VirtualTime.class, VirtualTime::new);

	@Test
	void recoverMethodsThatDifferOnlyInTheirGenericReturnTypeEachRecoverTheirOwnMethod() {
		this.runner.withBean(Maps.class, Maps::new).run(context -> {
			assertThat(context).hasNotFailed();
			Maps maps = context.getBean(Maps.class);
			assertThat(maps.strings("a")).isEqualTo(Map.of("a", "recovered"));
			assertThat(maps.numbers("b")).isEqualTo(Map.of("b", 1));
		});
	}

	@Test
	void recoverMethodsThatDifferOnlyInAGenericParameterTypeEachRecoverTheirOwnMethod() {
		this.runner.withBean(Lists.class, Lists::new).run(context -> {
			assertThat(context).hasNotFailed();
			Lists lists = context.getBean(Lists.class);
			assertThat(lists.ofStrings(List.of("x"))).isEqualTo("strings");
			assertThat(lists.ofNumbers(List.of(1))).isEqualTo("numbers");
		});
	}

	public static class Maps {

		@Retryable
		public Map<String, String> strings(String id) throws IOException {
			throw new IOException("down");
		}

		@Retryable
		public Map<String, Integer> numbers(String id) throws IOException {
			throw new IOException("down");
		}

		@Recover
		public Map<String, Integer> recoverNumbers(IOException failure, String id) {
			return Map.of(id, 1);
		}

		@Recover
		public Map<String, String> recoverStrings(IOException failure, String id) {
			return Map.of(id, "recovered");
		}

	}

	public static class Lists {

		@Retryable
		public String ofStrings(List<String> values) throws IOException {
			throw new IOException("down");
		}

		@Retryable
		public String ofNumbers(List<Integer> values) throws IOException {
			throw new IOException("down");
		}

		@Recover
		public String recoverNumbers(IOException failure, List<Integer> values) {
			return "numbers";
		}

		@Recover
		public String recoverStrings(IOException failure, List<String> values) {
			return "strings";
		}

	}

}
