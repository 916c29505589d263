package shop;

import java.io.IOException;

import dev.retrykit.migrate.Script;
import io.github.resilience4j.circuitbreaker.annotation.CircuitBreaker;

public class Payments {

	private final Script script;

	public Payments(Script script) {
		this.script = script;
	}

	@CircuitBreaker(name = "payments", fallbackMethod = "later")
	public String pay(String order) throws IOException {
		return this.script.call("pay");
	}

	public String later(String order, Exception failure) {
		return "later " + order;
	}

}
