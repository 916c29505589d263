package dev.retrykit.budget;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatNullPointerException;

class RetryBudgetTests {

	private static RetryBudget budget(int maxTokens, double tokenRatio) {
		return RetryBudget.create("downstream", RetryBudgetConfig.builder().maxTokens(maxTokens).tokenRatio(tokenRatio).build());
	}

	private static void fail(RetryBudget budget, int times) {
		for (int i = 0; i < times; i++) {
			budget.onFailure();
		}
	}

	private static void succeed(RetryBudget budget, int times) {
		for (int i = 0; i < times; i++) {
			budget.onSuccess();
		}
	}

	@Test
	void startsFull() {
		RetryBudget budget = RetryBudget.create("downstream", RetryBudgetConfig.ofDefaults());
		assertThat(budget.getTokens()).isEqualTo(10.0);
		assertThat(budget.getMaxTokens()).isEqualTo(10);
		assertThat(budget.tryAcquireRetry()).isTrue();
		assertThat(budget.getName()).isEqualTo("downstream");
		assertThat(budget.getConfig()).isEqualTo(RetryBudgetConfig.ofDefaults());
	}

	@Test
	void failuresTakeOneTokenAndSuccessesGiveBackTheRatio() {
		RetryBudget budget = budget(10, 0.1);
		fail(budget, 3);
		assertThat(budget.getTokens()).isEqualTo(7.0);
		succeed(budget, 3);
		assertThat(budget.getTokens()).isEqualTo(7.3);
		fail(budget, 1);
		assertThat(budget.getTokens()).isEqualTo(6.3);
	}

	@Test
	void tokensNeverExceedMaxTokens() {
		RetryBudget budget = budget(10, 0.4);
		succeed(budget, 5);
		assertThat(budget.getTokens()).isEqualTo(10.0);
		fail(budget, 1);
		succeed(budget, 3);
		assertThat(budget.getTokens()).isEqualTo(10.0);
	}

	@Test
	void tokensNeverGoBelowZero() {
		RetryBudget budget = budget(3, 0.5);
		fail(budget, 10);
		assertThat(budget.getTokens()).isZero();
		budget.onSuccess();
		assertThat(budget.getTokens()).isEqualTo(0.5);
		budget.onFailure();
		assertThat(budget.getTokens()).isZero();
	}

	@Test
	void retriesAreRefusedAtExactlyHalfAndAllowedJustAbove() {
		RetryBudget budget = budget(10, 0.001);
		fail(budget, 4);
		assertThat(budget.tryAcquireRetry()).as("6 tokens").isTrue();
		fail(budget, 1);
		assertThat(budget.getTokens()).isEqualTo(5.0);
		assertThat(budget.tryAcquireRetry()).as("exactly half").isFalse();
		budget.onSuccess();
		assertThat(budget.getTokens()).isEqualTo(5.001);
		assertThat(budget.tryAcquireRetry()).as("a thousandth above half").isTrue();
	}

	@Test
	void halfOfAnOddMaximumIsAFraction() {
		RetryBudget budget = budget(3, 0.5);
		fail(budget, 1);
		assertThat(budget.tryAcquireRetry()).as("2 > 1.5").isTrue();
		fail(budget, 1);
		assertThat(budget.tryAcquireRetry()).as("1 < 1.5").isFalse();
		budget.onSuccess();
		assertThat(budget.tryAcquireRetry()).as("1.5 is not above 1.5").isFalse();
		budget.onSuccess();
		assertThat(budget.tryAcquireRetry()).as("2 > 1.5").isTrue();
	}

	@Test
	void askingConsumesNothing() {
		RetryBudget budget = budget(10, 0.1);
		for (int i = 0; i < 100; i++) {
			budget.tryAcquireRetry();
		}
		assertThat(budget.getTokens()).isEqualTo(10.0);
	}

	@Test
	void twoUsersOfOneBudgetDrainItTogether() {
		RetryBudget shared = budget(10, 0.1);
		Runnable inventoryFails = shared::onFailure;
		Runnable pricingFails = shared::onFailure;
		for (int i = 0; i < 3; i++) {
			inventoryFails.run();
			pricingFails.run();
		}
		assertThat(shared.getTokens()).isEqualTo(4.0);
		assertThat(shared.tryAcquireRetry()).as("neither user may retry").isFalse();
		for (int i = 0; i < 11; i++) {
			shared.onSuccess();
		}
		assertThat(shared.getTokens()).isEqualTo(5.1);
		assertThat(shared.tryAcquireRetry()).isTrue();
	}

	@Test
	void toStringShowsNameTokensAndConfig() {
		RetryBudget budget = budget(10, 0.1);
		fail(budget, 3);
		budget.onSuccess();
		assertThat(budget).hasToString("RetryBudget{name='downstream', tokens=7.1, maxTokens=10, tokenRatio=0.1}");
	}

	@Test
	void rejectsBadArguments() {
		assertThatNullPointerException().isThrownBy(() -> RetryBudget.create(null, RetryBudgetConfig.ofDefaults()))
				.withMessage("name must not be null");
		assertThatNullPointerException().isThrownBy(() -> RetryBudget.create("x", null)).withMessage("config must not be null");
		assertThatIllegalArgumentException().isThrownBy(() -> RetryBudget.create("", RetryBudgetConfig.ofDefaults()))
				.withMessage("Invalid name '': must not be blank");
	}

}
