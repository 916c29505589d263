package shop;

import java.io.IOException;

import dev.retrykit.migrate.Script;
import org.springframework.retry.RetryContext;
import org.springframework.retry.support.RetryTemplate;

public class Jobs {

	private final RetryTemplate template = RetryTemplate.builder().maxAttempts(3).fixedBackoff(1).retryOn(IOException.class).build();

	private final Script script;

	public Jobs(Script script) {
		this.script = script;
	}

	public String run(String name) throws IOException {
		return this.template.execute((RetryContext context) -> this.script.call("job"),
				(context) -> "recovered " + name + " after " + context.getRetryCount() + " failures");
	}

}
