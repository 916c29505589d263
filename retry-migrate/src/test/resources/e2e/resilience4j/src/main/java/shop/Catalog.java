package shop;

import java.io.IOException;

import dev.retrykit.migrate.Script;
import io.github.resilience4j.retry.annotation.Retry;

public class Catalog {

	private final Script script;

	public Catalog(Script script) {
		this.script = script;
	}

	@Retry(name = "prices", fallbackMethod = "listed")
	public String price(String sku) throws IOException {
		return this.script.call("catalog price");
	}

	@Retry(name = "inventory")
	public String stock(String sku) throws IOException {
		return this.script.call("catalog stock");
	}

	public String listed(String sku, IOException failure) {
		return "listed " + sku;
	}

}
