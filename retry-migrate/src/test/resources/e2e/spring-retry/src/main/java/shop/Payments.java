package shop;

import java.io.IOException;

import dev.retrykit.migrate.Script;
import org.springframework.retry.annotation.CircuitBreaker;
import org.springframework.retry.annotation.Recover;

public class Payments {

	private final Script script;

	public Payments(Script script) {
		this.script = script;
	}

	@CircuitBreaker(maxAttempts = 2, openTimeout = 60000, resetTimeout = 60000)
	public String pay(String order) throws IOException {
		return this.script.call("pay");
	}

	@Recover
	public String payLater(Exception failure, String order) {
		return "later " + order;
	}

}
