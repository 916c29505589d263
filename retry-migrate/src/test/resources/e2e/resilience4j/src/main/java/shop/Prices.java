package shop;

import java.io.IOException;

import dev.retrykit.migrate.Script;
import io.github.resilience4j.retry.annotation.Retry;

public class Prices {

	private final Script script;

	public Prices(Script script) {
		this.script = script;
	}

	@Retry(name = "prices")
	public String price(String sku) throws IOException {
		return this.script.call("price");
	}

}
