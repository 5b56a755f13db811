import { useQuery } from "@tanstack/react-query";
import { api, unwrap } from "../../api/client";
import type { components } from "../../api/schema.gen";
import { useSession } from "../../session/SessionContext";
import { Button } from "../../ui/Button";
import { EmptyState } from "../../ui/EmptyState";
import { Loading } from "../../ui/Loading";
import { Pill } from "../../ui/Pill";
import { ProblemMessage } from "../../ui/ProblemMessage";
import { timeAgo } from "../../ui/time";
import { usePageTitle } from "../../ui/usePageTitle";

type Person = components["schemas"]["Person"];

/** GET /api/v1/workspace/people (admin), every page. */
async function listPeople(): Promise<Person[]> {
  const items: Person[] = [];
  let pageToken = "";
  do {
    const page = await unwrap(
      api.GET("/api/v1/workspace/people", {
        params: { query: { page_size: 200, ...(pageToken ? { page_token: pageToken } : {}) } },
      }),
    );
    items.push(...page.items);
    pageToken = page.next_page_token;
  } while (pageToken);
  return items;
}

export default function PeoplePage() {
  usePageTitle("People");
  const { me } = useSession();
  const people = useQuery({ queryKey: ["people"], queryFn: listPeople });

  let content;
  if (people.isPending) content = <Loading label="Loading people…" />;
  else if (people.isError)
    content = <ProblemMessage error={people.error} action={<Button size="sm" onClick={() => people.refetch()}>Retry</Button>} />;
  else if (people.data.length === 0)
    content = <EmptyState>No one has signed in with the identity provider yet.</EmptyState>;
  else
    content = (
      <ul className="list" aria-label="People">
        {people.data.map((person) => (
          <li key={person.id} className="list-row">
            <div className="list-row__main">
              <div className="list-row__title">
                <span className="truncate">{person.name || person.email}</span>
                <Pill tone={person.role === "admin" ? "accent" : "neutral"}>{person.role}</Pill>
                {person.id === me.user?.id && <Pill tone="ok">you</Pill>}
              </div>
              <div className="list-row__meta">
                <span>{person.email}</span>
                <span>Last signed in {timeAgo(person.last_sign_in_at)}</span>
              </div>
            </div>
          </li>
        ))}
      </ul>
    );

  return (
    <div className="page">
      <header className="page-header">
        <h1>
          People <Pill tone="accent">admin</Pill>
        </h1>
        <p className="page-header__lead">
          Who signed in to workspace {me.workspace.name} with the identity provider. Their roles come from their groups there,
          checked again every few minutes.
        </p>
      </header>
      {content}
    </div>
  );
}
