// The JudgeModel port over an OpenAI-compatible gateway (the official openai client).
export * from './openai-judge-model';
export * from './semaphore';
