/** utilerrors.NewAggregate(...).Error(): one message as is, several (duplicates dropped) in brackets. */
export function aggregate(messages: readonly string[]): string {
  const unique = [...new Set(messages)]
  return unique.length === 1 ? unique[0]! : `[${unique.join(', ')}]`
}
