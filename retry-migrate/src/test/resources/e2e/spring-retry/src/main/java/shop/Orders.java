package shop;

import java.io.IOException;

import dev.retrykit.migrate.Script;
import org.springframework.retry.annotation.Backoff;
import org.springframework.retry.annotation.Retryable;

public class Orders {

	private final Script script;

	public Orders(Script script) {
		this.script = script;
	}

	@Retryable(stateful = true, maxAttempts = 2, backoff = @Backoff(delay = 1))
	public String place(String id) throws IOException {
		return this.script.call("place");
	}

}
