package shop;

import java.io.IOException;

import dev.retrykit.migrate.Script;
import io.github.resilience4j.retry.annotation.Retry;

public class Inventory {

	private final Script script;

	public Inventory(Script script) {
		this.script = script;
	}

	@Retry(name = "inventory", fallbackMethod = "cached")
	public String stock(String sku) throws IOException {
		return this.script.call("stock");
	}

	public String cached(String sku, IOException failure) {
		return "cached " + sku;
	}

}
