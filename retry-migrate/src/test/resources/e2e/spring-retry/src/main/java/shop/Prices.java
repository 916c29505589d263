package shop;

import java.io.IOException;

import dev.retrykit.migrate.Script;
import org.springframework.retry.annotation.Backoff;
import org.springframework.retry.annotation.Retryable;

public class Prices {

	private final Script script;

	public Prices(Script script) {
		this.script = script;
	}

	@Retryable(noRetryFor = IllegalArgumentException.class, maxAttempts = 4, backoff = @Backoff(delay = 1, multiplier = 2, maxDelay = 4))
	public String price(String sku) throws IOException {
		return this.script.call("price");
	}

}
