/** A list route's body, `{data, pagination: {total, page, limit}}`: one page of a service's result (DESIGN §4). */
export const pageBody = <T>({ data, total }: { data: T[]; total: number }, { page, limit }: { page: number; limit: number }) => ({
  data,
  pagination: { total, page, limit },
});
