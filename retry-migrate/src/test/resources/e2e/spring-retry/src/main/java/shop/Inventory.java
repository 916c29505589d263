package shop;

import java.io.IOException;

import dev.retrykit.migrate.Script;
import org.springframework.retry.annotation.Backoff;
import org.springframework.retry.annotation.Recover;
import org.springframework.retry.annotation.Retryable;

public class Inventory {

	private final Script script;

	public Inventory(Script script) {
		this.script = script;
	}

	@Retryable(retryFor = IOException.class, maxAttempts = 3, backoff = @Backoff(delay = 1))
	public String stock(String sku) throws IOException {
		return this.script.call("stock");
	}

	@Recover
	public String noStock(IOException failure, String sku) {
		return "recovered " + sku;
	}

}
